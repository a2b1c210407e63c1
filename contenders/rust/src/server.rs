//! Lifecycle of the `http-*` servers (docs/contract.md, "Servers"): bind
//! `--bind`:P (an IPv4 address, 127.0.0.1 locally; a `tokio::net::TcpListener`,
//! made through `TcpSocket` for its backlog), print the ready line, serve the
//! workload's axum `Router` with `axum::serve` (hyper 1, HTTP/1.1 keep-alive, one
//! task per connection) until SIGTERM, then shut down gracefully and return, so
//! the process exits 0. The bare hyper server (`hyper_server.rs`, rust-hyper)
//! shares the socket, the signal handling and the ready line.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, TcpSocket};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Notify;

use crate::{Params, emit, fail};

/// The exact versions pinned with `=` in Cargo.toml (so the lock file cannot differ).
pub const TOKIO_VERSION: &str = "1.54.1";
pub const AXUM_VERSION: &str = "0.8.9";

/// After SIGTERM, connections get this long to finish their request (idle
/// keep-alive connections close at once); then the process exits anyway, well
/// inside the harness's 5 s.
pub const GRACE: Duration = Duration::from_secs(3);

/// The listen backlog asked for; Linux caps it at net.core.somaxconn, so the
/// queue is the kernel's maximum, as with Go's net.Listen and Netty (both pass
/// somaxconn). `TcpListener::bind` would use std's 128, too short when
/// thousands of connections open at once (seed 004).
const BACKLOG: u32 = 65_535;

/// `TcpListener::bind` with a larger backlog: SO_REUSEADDR (as bind sets it),
/// bind, listen.
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// A TCP port parameter (0..=65535), else exit 2.
pub fn port(p: &Params, name: &str) -> u16 {
    u16::try_from(p.u64(name)).unwrap_or_else(|_| p.reject(name, "not a TCP port"))
}

/// An IPv4 address parameter (`--bind`, `--backend-host`), else exit 2.
pub fn ipv4(p: &Params, name: &str) -> Ipv4Addr {
    p.str(name)
        .parse()
        .unwrap_or_else(|_| p.reject(name, "not an IPv4 address"))
}

/// The SIGTERM stream and the listening socket on `bind`:`port` (its port, the
/// kernel's choice when 0). The handler is registered before the socket listens
/// and so before the ready line: a SIGTERM right after that line is ours (not
/// the default action, which would kill the process with no exit 0).
pub fn sigterm_and_listener(bind: Ipv4Addr, port: u16) -> (Signal, TcpListener, u16) {
    let sigterm = signal(SignalKind::terminate())
        .unwrap_or_else(|e| fail(&format!("installing the SIGTERM handler: {e}")));
    let listener = listen((bind, port).into())
        .unwrap_or_else(|e| fail(&format!("binding {bind}:{port}: {e}")));
    let port = listener
        .local_addr()
        .unwrap_or_else(|e| fail(&format!("local address: {e}")))
        .port();
    (sigterm, listener, port)
}

/// Print the ready line: `runtime` holds the worker count (as `cpus` and
/// `workers`), the tokio version, then `stack` and `info`, each value a plain
/// ASCII string.
pub fn emit_ready(port: u16, stack: &[(&str, &str)], info: &[(&str, String)]) {
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    let mut runtime =
        format!("\"cpus\":{workers},\"workers\":{workers},\"tokio\":\"{TOKIO_VERSION}\"");
    let pairs = stack.iter().map(|(k, v)| (*k, *v));
    for (key, value) in pairs.chain(info.iter().map(|(k, v)| (*k, v.as_str()))) {
        debug_assert!(!value.contains(['"', '\\']));
        runtime.push_str(&format!(",\"{key}\":\"{value}\""));
    }
    emit(&format!(
        "{{\"type\":\"ready\",\"port\":{port},\"runtime\":{{{runtime}}}}}"
    ));
}

/// Serve `app` on `bind`:`port` until SIGTERM. `info` are extra ready-line
/// keys of the `runtime` object, each a plain ASCII string.
pub async fn serve(bind: Ipv4Addr, port: u16, app: Router, info: &[(&str, String)]) {
    let (mut sigterm, listener, port) = sigterm_and_listener(bind, port);
    // TCP_NODELAY on every accepted socket, as Go's net/http and Netty do by
    // default (axum's own ListenerExt::tap_io example); hyper writes a small
    // response in one write, so this mostly matters for no-one, but it removes
    // any Nagle/delayed-ACK interplay from the comparison.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });

    let stopping = Arc::new(Notify::new());
    let shutdown = {
        let stopping = Arc::clone(&stopping);
        async move {
            sigterm.recv().await;
            stopping.notify_one(); // a stored permit: never lost
        }
    };
    let server = axum::serve(listener, app).with_graceful_shutdown(shutdown);

    emit_ready(port, &[("axum", AXUM_VERSION)], info);

    tokio::select! {
        result = server => {
            if let Err(e) = result {
                fail(&format!("serving: {e}"));
            }
        }
        () = async {
            stopping.notified().await;
            tokio::time::sleep(GRACE).await;
        } => eprintln!("concbench-tokio: connections still open {GRACE:?} after SIGTERM; exiting"),
    }
}
