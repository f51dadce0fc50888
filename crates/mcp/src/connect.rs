//! Opening a session over each transport: stdio (our own child process),
//! streamable HTTP (rmcp's client) and legacy SSE (ours).

use std::collections::BTreeMap;

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::config::ServerTransport;
use crate::server::{Handler, Session};
use crate::stdio;
use crate::tail::Tail;

pub(crate) async fn open(
    transport: &ServerTransport,
    tail: &Tail,
    handler: Handler,
) -> Result<Session, String> {
    match transport {
        ServerTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let env = stdio::child_env(std::env::vars(), env);
            let mut process = stdio::spawn(command, args, &env, cwd.as_deref(), tail)?;
            let group = process.group;
            let mut garbage = process.garbage.clone();
            let started = handler.serve((process.reader, process.writer));
            let service = tokio::select! {
                started = started => started.map_err(|e| {
                    match tail.last() {
                        Some(line) => format!("it did not start: {e}: {line}"),
                        None => format!("it did not start: {e}"),
                    }
                }),
                seen = garbage.wait_for(Option::is_some) => {
                    let line = seen.ok().and_then(|line| line.clone()).unwrap_or_default();
                    Err(format!("it wrote something that is not JSON-RPC on stdout: {line}"))
                }
                status = process.child.wait() => {
                    let code = status.ok().and_then(|s| s.code());
                    let how = code.map_or_else(|| "it was stopped by a signal".to_owned(), |c| format!("it exited with code {c}"));
                    Err(match tail.last() {
                        Some(line) => format!("{how} while starting: {line}"),
                        None => format!("{how} while starting"),
                    })
                }
            };
            match service {
                Ok(service) => Ok(Session {
                    service,
                    child: Some(process.child),
                    group,
                }),
                Err(message) => {
                    if let Some(group) = group {
                        stdio::signal_group(group, true);
                    }
                    let _ = process.child.kill().await;
                    Err(message)
                }
            }
        }
        ServerTransport::Http { url, headers } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
            config.custom_headers = header_map(headers)?
                .into_iter()
                .filter_map(|(k, v)| Some((k?, v)))
                .collect();
            let transport = StreamableHttpClientTransport::with_client(
                crate::http_client::http_client(),
                config,
            );
            remote(handler, transport, url).await
        }
        ServerTransport::Sse { url, headers } => {
            let transport = crate::sse::connect_sse(
                crate::http_client::http_client(),
                url,
                header_map(headers)?,
            )
            .await
            .map_err(|e| format!("cannot connect to {url}: {e}"))?;
            remote(handler, transport, url).await
        }
    }
}

/// Initializes a session over an HTTP transport: no process of its own.
async fn remote<T, E, A>(handler: Handler, transport: T, url: &str) -> Result<Session, String>
where
    T: rmcp::transport::IntoTransport<rmcp::service::RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let service = handler
        .serve(transport)
        .await
        .map_err(|e| format!("cannot connect to {url}: {e}"))?;
    Ok(Session {
        service,
        child: None,
        group: None,
    })
}

fn header_map(headers: &BTreeMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|_| format!("header {name} is not a valid header name"))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|_| format!("header {name} has a value that cannot be sent"))?;
        map.insert(name, value);
    }
    Ok(map)
}
