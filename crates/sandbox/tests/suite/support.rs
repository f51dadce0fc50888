//! A sandbox on the test worker binary and scripted bridges.

use std::sync::Mutex;
use std::time::Duration;

use pizza_sandbox::{
    Bridge, BridgeCall, EvalFailure, EvalOutcome, EvalRequest, Limits, Sandbox, WorkerCommand,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub(crate) fn command() -> WorkerCommand {
    WorkerCommand::new(env!("CARGO_BIN_EXE_pizza-eval-worker"), Vec::new())
}

pub(crate) fn sandbox(limits: Limits) -> Sandbox {
    Sandbox::new(command(), limits)
}

pub(crate) fn request(code: &str, bridges: &[&str]) -> EvalRequest {
    EvalRequest {
        code: code.to_owned(),
        bridges: bridges.iter().map(|b| (*b).to_owned()).collect(),
        task: false,
        timeout: None,
    }
}

pub(crate) async fn eval(
    sandbox: &Sandbox,
    key: &str,
    code: &str,
) -> Result<EvalOutcome, EvalFailure> {
    let bridge = Scripted::default();
    sandbox
        .eval(
            key,
            request(code, Scripted::NAMES),
            &bridge,
            CancellationToken::new(),
        )
        .await
}

/// `echo` returns its argument, `fail` rejects with its `message`, `page`
/// returns a string of `size` chars, `seen` lists the calls so far.
#[derive(Debug, Default)]
pub(crate) struct Scripted {
    pub(crate) calls: Mutex<Vec<BridgeCall>>,
}

impl Scripted {
    pub(crate) const NAMES: &[&str] = &["echo", "fail", "page"];
}

#[async_trait::async_trait]
impl Bridge for Scripted {
    async fn call(&self, call: BridgeCall) -> Result<Value, String> {
        self.calls.lock().unwrap().push(call.clone());
        match call {
            BridgeCall::Tool { name, args } => match name.as_str() {
                "echo" => Ok(args),
                "fail" => Err(args["message"].as_str().unwrap_or("failed").to_owned()),
                "page" => {
                    let size = args["size"].as_u64().unwrap_or(0) as usize;
                    Ok(json!("x".repeat(size)))
                }
                other => Err(format!("no bridge {other}")),
            },
            BridgeCall::Task { skill, ask } => Ok(json!({ "skill": skill, "ask": ask })),
        }
    }
}

/// Limits for attack programs: a short deadline and a small heap.
pub(crate) fn attack_limits() -> Limits {
    Limits {
        timeout: Duration::from_millis(1_500),
        memory_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    }
}

/// A bridge `slow(n)` that answers `n * 10` only once all `count` calls
/// arrived, highest `n` first.
#[derive(Debug)]
pub(crate) struct ReverseOrder {
    count: u64,
    arrived: Mutex<u64>,
    next: tokio::sync::watch::Sender<Option<u64>>,
    answered: Mutex<Vec<u64>>,
}

impl ReverseOrder {
    pub(crate) fn new(count: u64) -> Self {
        Self {
            count,
            arrived: Mutex::new(0),
            next: tokio::sync::watch::Sender::new(None),
            answered: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn answered(&self) -> Vec<u64> {
        self.answered.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Bridge for ReverseOrder {
    async fn call(&self, call: BridgeCall) -> Result<Value, String> {
        let BridgeCall::Tool { args, .. } = call else {
            return Err("no task".to_owned());
        };
        let n = args.as_u64().unwrap();
        let mut turn = self.next.subscribe();
        {
            let mut arrived = self.arrived.lock().unwrap();
            *arrived += 1;
            if *arrived == self.count {
                self.next.send_replace(Some(self.count - 1));
            }
        }
        turn.wait_for(|next| *next == Some(n)).await.unwrap();
        self.answered.lock().unwrap().push(n);
        self.next.send_replace(n.checked_sub(1));
        Ok(json!(n * 10))
    }
}
