//! One run of a guest program in a fresh boa context: the globals, the
//! evaluation (a script, or an async function when the code awaits or
//! returns at top level), and the loop that settles its promise by serving
//! bridge replies.

use std::io::BufRead;
use std::rc::Rc;

use boa_engine::builtins::promise::PromiseState;
use boa_engine::job::SimpleJobExecutor;
use boa_engine::module::IdleModuleLoader;
use boa_engine::native_function::NativeFunction;
use boa_engine::object::builtins::JsPromise;
use boa_engine::object::{FunctionObjectBuilder, IntegrityLevel};
use boa_engine::property::Attribute;
use boa_engine::{
    Context, JsError, JsObject, JsResult, JsString, JsValue, Script, Source, js_string,
};

use super::render::{self, Stringify};
use super::session;
use crate::request::BridgeCall;
use crate::wire::{FromWorker, GuestEnding, RunRequest, ToWorker};

/// Nested JS calls before the uncatchable "maximum call stack" ending.
/// Measured against the 64 MiB guest stack with native re-entry on every
/// level (`[x].map(f)` recursion in a debug build), with room to spare.
const RECURSION_LIMIT: usize = 10_000;
/// Values on boa's VM stack; a frame holds its locals and temporaries.
const VALUE_STACK_LIMIT: usize = 4 * 1024 * 1024;

/// A context built ahead of its run, so a request finds one ready.
pub(super) struct Prepared {
    context: Context,
    stringify: Stringify,
}

impl Prepared {
    pub(super) fn new() -> Option<Self> {
        match build() {
            Ok(prepared) => Some(prepared),
            Err(e) => {
                eprintln!("pizza eval worker: cannot build a context: {e}");
                None
            }
        }
    }
}

fn build() -> JsResult<Prepared> {
    // No module loader: `import()` rejects instead of reading the disk,
    // which boa's default loader would do relative to the working folder.
    let mut context = Context::builder()
        .job_executor(Rc::new(SimpleJobExecutor::new()))
        .module_loader(Rc::new(IdleModuleLoader))
        .build()?;
    let limits = context.runtime_limits_mut();
    limits.set_recursion_limit(RECURSION_LIMIT);
    limits.set_stack_size_limit(VALUE_STACK_LIMIT);
    let json = context
        .global_object()
        .get(js_string!("JSON"), &mut context)?;
    let stringify = json
        .as_object()
        .map(|json| json.get(js_string!("stringify"), &mut context))
        .transpose()?
        .and_then(|f| f.as_callable())
        .ok_or_else(|| {
            boa_engine::JsNativeError::typ().with_message("JSON.stringify is missing")
        })?;
    let stringify = Stringify(stringify);
    install_console(&mut context, &stringify)?;
    super::strings::install(&mut context)?;
    Ok(Prepared { context, stringify })
}

fn install_console(context: &mut Context, stringify: &Stringify) -> JsResult<()> {
    let console = JsObject::with_object_proto(context.intrinsics());
    for name in ["log", "info", "warn", "error", "debug"] {
        let function = FunctionObjectBuilder::new(
            context.realm(),
            NativeFunction::from_copy_closure_with_captures(console_log, stringify.0.clone()),
        )
        .name(JsString::from(name))
        .length(0)
        .build();
        console.set(JsString::from(name), function, true, context)?;
    }
    context.register_global_property(js_string!("console"), console, Attribute::all())?;
    Ok(())
}

fn console_log(
    _this: &JsValue,
    args: &[JsValue],
    stringify: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    let stringify = Stringify(stringify.clone());
    let parts: Vec<String> = args
        .iter()
        .map(|arg| render::log_text(arg, &stringify, context))
        .collect();
    session::log(&parts.join(" "));
    Ok(JsValue::undefined())
}

fn tool_call(
    _this: &JsValue,
    args: &[JsValue],
    captures: &(JsString, JsObject),
    context: &mut Context,
) -> JsResult<JsValue> {
    let (name, stringify) = captures;
    let arg = args.first().cloned().unwrap_or_default();
    // JSON.stringify semantics (toJSON, dropped functions), then parsed: an
    // argument JSON cannot hold rejects like an async function would.
    let json = match stringify.call(&JsValue::undefined(), &[arg], context) {
        Ok(text) => match text.as_string() {
            Some(text) => {
                serde_json::from_str(&text.to_std_string_lossy()).unwrap_or(serde_json::Value::Null)
            }
            None => serde_json::Value::Null,
        },
        Err(e) => return Ok(JsPromise::reject(e, context).into()),
    };
    let call = BridgeCall::Tool {
        name: name.to_std_string_lossy(),
        args: json,
    };
    Ok(session::start_call(call, context))
}

fn task_call(_this: &JsValue, args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let text = |index: usize, context: &mut Context| -> JsResult<String> {
        match args.get(index) {
            None => Ok(String::new()),
            Some(v) if v.is_undefined() => Ok(String::new()),
            Some(v) => Ok(v.to_string(context)?.to_std_string_lossy()),
        }
    };
    let call = match (text(0, context), text(1, context)) {
        (Ok(skill), Ok(ask)) => BridgeCall::Task { skill, ask },
        (Err(e), _) | (_, Err(e)) => return Ok(JsPromise::reject(e, context).into()),
    };
    Ok(session::start_call(call, context))
}

fn install_bridges(prepared: &mut Prepared, request: &RunRequest) -> JsResult<()> {
    let context = &mut prepared.context;
    let tools = JsObject::with_object_proto(context.intrinsics());
    for name in &request.bridges {
        let name = JsString::from(name.as_str());
        let function = FunctionObjectBuilder::new(
            context.realm(),
            NativeFunction::from_copy_closure_with_captures(
                tool_call,
                (name.clone(), prepared.stringify.0.clone()),
            ),
        )
        .name(name.clone())
        .length(1)
        .build();
        tools.set(name, function, true, context)?;
    }
    tools.set_integrity_level(IntegrityLevel::Frozen, context)?;
    let fixed = Attribute::READONLY | Attribute::NON_ENUMERABLE | Attribute::PERMANENT;
    context.register_global_property(js_string!("tools"), tools, fixed)?;
    if request.task {
        let task = FunctionObjectBuilder::new(
            context.realm(),
            NativeFunction::from_copy_closure(task_call),
        )
        .name(js_string!("task"))
        .length(2)
        .build();
        context.register_global_property(js_string!("task"), task, fixed)?;
    }
    Ok(())
}

/// Runs one program; `None` when stdin closed while it waited for a reply.
pub(super) fn run(
    mut prepared: Prepared,
    request: &RunRequest,
    stdin: &mut impl BufRead,
) -> Option<FromWorker> {
    session::begin(request.max_bridge_calls, request.max_log_chars);
    let settled = match install_bridges(&mut prepared, request) {
        Ok(()) => evaluate(&mut prepared.context, &request.code)
            .and_then(|value| settle(&mut prepared.context, value, stdin)),
        Err(e) => Err(Ending::Thrown(e)),
    };
    let Prepared {
        mut context,
        stringify,
    } = prepared;
    let report = match settled {
        Ok(value) => {
            let text = render::result_text(&value, &stringify, &mut context);
            let (result, result_chars_total) = render::cut(text, request.max_result_chars);
            let (bridge_calls, logs_left_out) = session::end();
            FromWorker::Done {
                result,
                result_chars_total,
                bridge_calls,
                logs_left_out,
            }
        }
        Err(Ending::HostGone) => {
            session::end();
            return None;
        }
        Err(ending) => {
            let (kind, message) = match ending {
                Ending::Thrown(error) => {
                    let message = render::thrown_text(&error, &stringify, &mut context);
                    (GuestEnding::Thrown, message)
                }
                Ending::Rejected(value) => {
                    let message = render::thrown_value_text(&value, &stringify, &mut context);
                    (GuestEnding::Thrown, message)
                }
                Ending::NeverSettled | Ending::HostGone => {
                    (GuestEnding::NeverSettled, String::new())
                }
            };
            // An uncaught rejection that the call budget caused names the budget.
            let kind = if kind == GuestEnding::Thrown && session::limit_hit() {
                GuestEnding::BridgeLimit
            } else {
                kind
            };
            let (bridge_calls, logs_left_out) = session::end();
            FromWorker::Failed {
                ending: kind,
                message,
                bridge_calls,
                logs_left_out,
            }
        }
    };
    drop(context);
    // Free the run's garbage now rather than in the middle of the next run.
    boa_engine::gc::force_collect();
    Some(report)
}

enum Ending {
    Thrown(JsError),
    Rejected(JsValue),
    NeverSettled,
    HostGone,
}

impl From<JsError> for Ending {
    fn from(error: JsError) -> Self {
        Self::Thrown(error)
    }
}

/// A script's completion value; code that only parses inside a function
/// (top-level `await` or `return`) runs as an async function, keeping its
/// line numbers by opening the function on the first line. There, a last
/// line that is an expression is returned, so `await tools.ls('/')` alone
/// gives its listing as a script's last expression would.
fn evaluate(context: &mut Context, code: &str) -> Result<JsValue, Ending> {
    let script = match Script::parse(Source::from_bytes(code), None, context) {
        Ok(script) => script,
        Err(_) => {
            let returning = returning_last_line(code)
                .map(|code| format!("(async () => {{{code}\n}})()"))
                .and_then(|wrapped| {
                    Script::parse(Source::from_bytes(&wrapped), None, context).ok()
                });
            match returning {
                Some(script) => script,
                None => {
                    let wrapped = format!("(async () => {{{code}\n}})()");
                    Script::parse(Source::from_bytes(&wrapped), None, context)?
                }
            }
        }
    };
    Ok(script.evaluate(context)?)
}

/// `code` with its last line made a `return` of that line, when the line
/// may be an expression; the parse decides whether it really is one.
fn returning_last_line(code: &str) -> Option<String> {
    let trimmed = code.trim_end();
    let start = trimmed.rfind('\n').map_or(0, |at| at + 1);
    let line = trimmed[start..].trim().trim_end_matches(';').trim_end();
    const STATEMENTS: [&str; 18] = [
        "return", "}", "{", "//", "/*", "*", "const ", "let ", "var ", "if", "for", "while", "do",
        "throw", "try", "function", "class", "else",
    ];
    if line.is_empty() || line.contains("//") || STATEMENTS.iter().any(|s| line.starts_with(s)) {
        return None;
    }
    Some(format!("{}return ({line});", &trimmed[..start]))
}

/// Awaits a thenable result, answering bridge calls until it settles.
fn settle(
    context: &mut Context,
    value: JsValue,
    stdin: &mut impl BufRead,
) -> Result<JsValue, Ending> {
    let Some(object) = value.as_object() else {
        context.run_jobs()?;
        return Ok(value);
    };
    let then = object.get(js_string!("then"), context)?;
    if !then.is_callable() {
        context.run_jobs()?;
        return Ok(value);
    }
    let promise = JsPromise::resolve(value, context);
    let mut line = String::new();
    loop {
        context.run_jobs()?;
        match promise.state() {
            PromiseState::Fulfilled(value) => return Ok(value),
            PromiseState::Rejected(value) => return Err(Ending::Rejected(value)),
            PromiseState::Pending => {}
        }
        if !session::has_pending() {
            return Err(Ending::NeverSettled);
        }
        match super::receive(stdin, &mut line) {
            None => return Err(Ending::HostGone),
            Some(ToWorker::Reply { id, ok, err, .. }) => {
                let outcome = match (ok, err) {
                    (_, Some(message)) => Err(message),
                    (Some(value), None) => Ok(value),
                    (None, None) => Ok(serde_json::Value::Null),
                };
                session::settle(id, outcome, context)?;
            }
            Some(ToWorker::Run(_)) => {
                eprintln!("pizza eval worker: a run arrived while one is in progress");
            }
        }
    }
}
