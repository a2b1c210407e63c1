//! rust-hyper: the `http-*` workloads as a bare hyper 1 service (the "minimal"
//! server tier: no axum router, no tower layers), the way hyper's own server
//! examples are written: a Tokio accept loop, one task per connection running
//! `hyper::server::conn::http1` (HTTP/1.1, keep-alive on, hyper's defaults) over
//! a `service_fn` that matches the one path by hand. The socket, SIGTERM and the
//! ready line are `server.rs`'s; the aggregate's work is `http_aggregate::user_of`,
//! the same code rust-tokio's axum handler runs.

use std::convert::Infallible;
use std::io::ErrorKind;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;

use crate::http_aggregate::{Downstream, parse_id, user_of};
use crate::server::{GRACE, emit_ready, sigterm_and_listener};

/// The exact version pinned with `=` in Cargo.toml.
const HYPER_VERSION: &str = "1.12.0";

/// What the service answers.
pub enum App {
    /// http-hello: `GET /hello`.
    Hello,
    /// http-aggregate: `GET /user/{id}`, and `GET /waits` with `downstream=inproc`.
    Aggregate(Arc<Downstream>),
}

type Answer = Response<Full<Bytes>>;

fn answer(status: StatusCode, content_type: Option<&'static str>, body: Bytes) -> Answer {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response // hyper adds Content-Length (the body's size is known) and Date
}

/// An error answer: the status, an empty body (as axum's).
fn empty(status: StatusCode) -> Answer {
    answer(status, None, Bytes::new())
}

/// The one path's methods: GET and HEAD (hyper sends no body for HEAD); any other
/// 405 with `Allow: GET,HEAD`, as axum's `get` route answers.
fn method_not_allowed() -> Answer {
    let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static("GET,HEAD"));
    response
}

async fn handle(app: Arc<App>, request: Request<Incoming>) -> Result<Answer, Infallible> {
    let path = request.uri().path();
    let get = matches!(*request.method(), Method::GET | Method::HEAD);
    Ok(match &*app {
        App::Hello if path == "/hello" && !get => method_not_allowed(),
        App::Hello if path == "/hello" => answer(
            StatusCode::OK,
            Some("text/plain"),
            Bytes::from_static(&crate::http_hello::BODY),
        ),
        App::Aggregate(downstream) => match path.strip_prefix("/user/").and_then(parse_id) {
            None if path == "/waits" => match downstream.waits_json() {
                None => empty(StatusCode::NOT_FOUND), // downstream=http: no waits to count
                Some(_) if !get => method_not_allowed(),
                Some(body) => answer(StatusCode::OK, Some("application/json"), body.into()),
            },
            None => empty(StatusCode::NOT_FOUND),
            Some(_) if !get => method_not_allowed(),
            Some(id) => match user_of(downstream, id).await {
                Ok(user) => match serde_json::to_vec(&user) {
                    Ok(body) => answer(StatusCode::OK, Some("application/json"), body.into()),
                    Err(_) => empty(StatusCode::INTERNAL_SERVER_ERROR),
                },
                Err(status) => empty(status),
            },
        },
        App::Hello => empty(StatusCode::NOT_FOUND),
    })
}

/// Serve `app` on `bind`:`port` until SIGTERM, then let in-flight requests finish
/// (idle keep-alive connections close at once) for at most `GRACE`.
pub async fn serve(bind: Ipv4Addr, port: u16, app: App, info: &[(&str, String)]) {
    let (mut sigterm, listener, port) = sigterm_and_listener(bind, port);
    let app = Arc::new(app);
    let graceful = GracefulShutdown::new();
    let http = http1::Builder::new(); // keep-alive on, no header-read timeout: hyper's defaults

    emit_ready(port, &[("server", "hyper"), ("hyper", HYPER_VERSION)], info);

    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    accept_error(e).await;
                    continue;
                }
            },
            _ = sigterm.recv() => break,
        };
        // TCP_NODELAY, as rust-tokio sets it on axum's accepted sockets.
        let _ = stream.set_nodelay(true);
        let app = Arc::clone(&app);
        let service = service_fn(move |request| handle(Arc::clone(&app), request));
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = connection.await; // a client that goes away is not an error of ours
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(GRACE) => {
            eprintln!("concbench-tokio: connections still open {GRACE:?} after SIGTERM; exiting");
        }
    }
}

/// What axum::serve does on an accept error: a connection that failed before it
/// was accepted is skipped; anything else (EMFILE, ENOBUFS) is logged and the loop
/// waits a second, so it does not spin.
async fn accept_error(e: std::io::Error) {
    if matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    eprintln!("concbench-tokio: accept error: {e}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
