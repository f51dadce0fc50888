use super::*;
use pizza_test_support::mcp::{EverythingHttp, HttpMode, mcp_servers};
use pretty_assertions::assert_eq;
use rmcp::model::CallToolRequestParams;
use rmcp::service::QuitReason;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Waits this long for anything that should happen at once.
const DEADLINE: Duration = Duration::from_secs(20);

#[tokio::test]
async fn talks_to_server_everything_and_closes_when_it_goes_away() {
    let servers = mcp_servers().unwrap();
    let mut server = EverythingHttp::start(&servers, HttpMode::Sse).unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("x-pizza-test", HeaderValue::from_static("1"));
    let transport = connect_sse(crate::http_client(), &server.url, headers)
        .await
        .unwrap();
    assert_eq!(transport.endpoint().path(), "/message");
    assert!(
        transport
            .endpoint()
            .query()
            .is_some_and(|q| q.starts_with("sessionId="))
    );

    let client = rmcp::serve_client((), transport).await.unwrap();
    let info = client.peer_info().unwrap();
    assert!(
        info.server_info
            .as_ref()
            .is_some_and(|s| s.name.contains("everything")),
        "{info:?}"
    );

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");

    let arguments = serde_json::json!({"message": "over SSE"});
    let result = client
        .call_tool(
            CallToolRequestParams::new("echo")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["content"][0]["text"], "Echo: over SSE");

    server.kill();
    let quit = tokio::time::timeout(DEADLINE, client.waiting())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(quit, QuitReason::Closed), "{quit:?}");
}

/// A one-shot HTTP stub: answers each connection's request with `answer`
/// and keeps the connection open until the test ends.
async fn stub(answers: Vec<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        for answer in answers {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = socket.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            socket.write_all(answer.as_bytes()).await.unwrap();
            held.push(socket);
        }
        std::future::pending::<()>().await;
    });
    url
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";

#[tokio::test]
async fn a_refusing_server_is_an_error_with_its_status() {
    let url = stub(vec!["HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"]).await;
    let error = connect_sse(crate::http_client(), &url, HeaderMap::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "the server answered 404");
}

#[tokio::test]
async fn a_stream_without_an_endpoint_times_out() {
    let url = stub(vec![SSE_HEAD]).await;
    let wait = Duration::from_millis(300);
    let error = connect_sse_within(crate::http_client(), &url, HeaderMap::new(), wait)
        .await
        .unwrap_err();
    assert!(matches!(error, SseError::NoEndpoint(_)), "{error:?}");
    assert_eq!(
        SseError::NoEndpoint(ENDPOINT_WAIT).to_string(),
        "no endpoint event within 20 s"
    );
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    let url = stub(vec![
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: endpoint\ndata: http://elsewhere.example/message\n\n",
    ])
    .await;
    let error = connect_sse(crate::http_client(), &url, HeaderMap::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, SseError::ForeignEndpoint { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn messages_arrive_and_a_refused_post_is_an_error() {
    let url = stub(vec![
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n: keep-alive\n\nevent: endpoint\ndata: /message?sessionId=abc\n\nevent: message\ndata: not json\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
        "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n",
    ])
    .await;
    let mut transport = connect_sse(crate::http_client(), &url, HeaderMap::new())
        .await
        .unwrap();
    assert!(
        transport
            .endpoint()
            .as_str()
            .ends_with("/message?sessionId=abc")
    );
    // The line that is not JSON is skipped, not the end of the session.
    let message = tokio::time::timeout(DEADLINE, transport.receive())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );

    let ping: TxJsonRpcMessage<RoleClient> =
        serde_json::from_value(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            .unwrap();
    let error = transport.send(ping).await.unwrap_err();
    assert_eq!(error.to_string(), "the server answered 500");

    transport.close().await.unwrap();
    assert!(transport.receive().await.is_none());
}

#[test]
fn relative_endpoints_resolve_against_the_stream_url() {
    let base = Url::parse("http://127.0.0.1:3001/mcp/sse").unwrap();
    assert_eq!(
        resolve_endpoint(&base, "/message?sessionId=1")
            .unwrap()
            .as_str(),
        "http://127.0.0.1:3001/message?sessionId=1"
    );
    assert_eq!(
        resolve_endpoint(&base, "messages?s=2").unwrap().as_str(),
        "http://127.0.0.1:3001/mcp/messages?s=2"
    );
    assert!(resolve_endpoint(&base, "http://127.0.0.1:3002/message").is_err());
}
