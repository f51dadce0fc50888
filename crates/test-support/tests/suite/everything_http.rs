//! server-everything's HTTP modes, started on loopback and stopped on drop.

use pizza_test_support::mcp::{EverythingHttp, HttpMode, mcp_servers};
use std::net::TcpStream;

#[test]
fn starts_on_a_loopback_port_and_stops_on_drop() {
    let servers = mcp_servers().unwrap();
    let server = EverythingHttp::start(&servers, HttpMode::StreamableHttp).unwrap();
    let port = server.port;
    assert_eq!(server.url, format!("http://127.0.0.1:{port}/mcp"));
    TcpStream::connect(("127.0.0.1", port)).unwrap();
    drop(server);
    // The kill waited for the exit, so the port is closed by now.
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}
