//! `http-aggregate` (seed 003): `GET /user/{id}` waits for the base call, then
//! for detail and extra concurrently (`tokio::join!` in the handler's own task,
//! no spawn), and answers the assembled user as JSON (`axum::Json`: serde_json
//! on a `#[derive(Serialize)]` struct, `Content-Type: application/json`).
//!
//! Downstream calls: `inproc` = `tokio::time::sleep`, each wait counted for
//! `GET /waits` (`Waits`); `http` = a GET to the
//! latency backend with one shared `reqwest::Client` (rust-tokio) or hyper-util's
//! legacy `Client` (rust-hyper; the pool reqwest wraps), either pool unbounded
//! per host, the whole body read, anything but 200 → 502.
//!
//! The id is digits only, 1 to 2^53 − 1 (docs/contract.md, "Error answers"); any
//! other `/user/…` is a path no workload serves: the same empty 404 as an unknown path.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Uri;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use reqwest::Url;
use serde::Serialize;
use tokio::time::sleep;

use crate::Params;

pub const PARAMS: &[&str] = &[
    "port",
    "bind",
    "base-ms",
    "detail-ms",
    "extra-ms",
    "downstream",
    "backend-host",
    "backend-port",
    "pool-size",
];

/// The exact versions pinned with `=` in Cargo.toml.
const REQWEST_VERSION: &str = "0.13.5";
const HYPER_UTIL_VERSION: &str = "0.1.21";

// The seed's model: base gives the id, detail the name/age/sex, extra the
// phone/level; the handler assembles the `User` it answers.
struct UserDetail {
    name: String,
    age: u32,
    sex: u8,
}

struct UserExtra {
    phone: &'static str,
    level: &'static str,
}

#[derive(Serialize)]
pub struct User {
    id: u64,
    name: String,
    age: u32,
    sex: u8,
    phone: &'static str,
    level: &'static str,
}

/// Which downstream call: index into the delays / URLs.
#[derive(Clone, Copy)]
enum Call {
    Base = 0,
    Detail = 1,
    Extra = 2,
}

/// Which HTTP client makes the downstream calls when `downstream=http`.
#[derive(Clone, Copy)]
pub enum ClientKind {
    /// reqwest (rust-tokio: the client an axum service uses).
    Reqwest,
    /// hyper-util's legacy pooled `Client` over `HttpConnector` (rust-hyper).
    Hyper,
}

// Made once and shared behind an Arc, so the variants' size difference is moot.
#[allow(clippy::large_enum_variant)]
pub enum Downstream {
    /// `tokio::time::sleep` of each call's delay, each wait counted in `Waits`.
    InProc([Duration; 3], Waits),
    /// `GET http://<backend-host>:<backend-port>/delay/<ms>`, URLs parsed once.
    Http(reqwest::Client, [Url; 3]),
    /// The same GETs with hyper-util's legacy client, URIs parsed once.
    Hyper(HyperClient<HttpConnector, Empty<Bytes>>, [Uri; 3]),
}

/// docs/contract.md's "Proof of the waits" (`downstream=inproc`): each call counts
/// one wait of its kind (base, detail, extra) and keeps the shortest, timed on the
/// monotonic clock from just before `sleep(..)` arms the timer to the task running
/// again after its `.await`, so the harness can tell three real waits per request
/// from one merged or skipped wait, none shorter than asked. The counting is off
/// the timed span and cheap, as fanout's `FetchProof`: one atomic add, and a
/// compare-and-swap minimum only when the wait is shorter than the one kept (a
/// single load once the minimum has settled). Totals since start, at `GET /waits`.
pub struct Waits([WaitProof; 3]);

struct WaitProof {
    count: AtomicU64,
    min_ns: AtomicU64,
}

impl WaitProof {
    fn new() -> WaitProof {
        WaitProof {
            count: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
        }
    }

    fn record(&self, waited: Duration) {
        let ns = waited.as_nanos() as u64;
        self.count.fetch_add(1, Relaxed);
        if ns < self.min_ns.load(Relaxed) {
            self.min_ns.fetch_min(ns, Relaxed);
        }
    }

    /// `{"count": n, "min_us": m}`, `min_us` in whole µs rounded down (never
    /// overstating a wait), `null` before the first wait.
    fn json(&self) -> String {
        let count = self.count.load(Relaxed);
        match self.min_ns.load(Relaxed) {
            u64::MAX => format!(r#"{{"count":{count},"min_us":null}}"#),
            ns => format!(r#"{{"count":{count},"min_us":{}}}"#, ns / 1000),
        }
    }
}

impl Waits {
    fn new() -> Waits {
        Waits([WaitProof::new(), WaitProof::new(), WaitProof::new()])
    }

    /// `GET /waits`'s body: `{"base": {…}, "detail": {…}, "extra": {…}}`.
    fn json(&self) -> String {
        let [base, detail, extra] = &self.0;
        format!(
            r#"{{"base":{},"detail":{},"extra":{}}}"#,
            base.json(),
            detail.json(),
            extra.json()
        )
    }
}

impl Downstream {
    /// `GET /waits`'s body with `downstream=inproc`; None (answered 404) with `http`.
    pub fn waits_json(&self) -> Option<String> {
        match self {
            Downstream::InProc(_, waits) => Some(waits.json()),
            _ => None,
        }
    }

    async fn call(&self, call: Call) -> Result<(), StatusCode> {
        match self {
            Downstream::InProc(delays, waits) => {
                let before = Instant::now();
                sleep(delays[call as usize]).await;
                waits.0[call as usize].record(before.elapsed());
                Ok(())
            }
            Downstream::Http(client, urls) => {
                let bad_gateway = |_| StatusCode::BAD_GATEWAY;
                let response = client
                    .get(urls[call as usize].clone())
                    .send()
                    .await
                    .map_err(bad_gateway)?;
                if response.status() != StatusCode::OK {
                    return Err(StatusCode::BAD_GATEWAY);
                }
                response.bytes().await.map_err(bad_gateway)?; // the whole body
                Ok(())
            }
            Downstream::Hyper(client, uris) => {
                let response = client
                    .get(uris[call as usize].clone())
                    .await
                    .map_err(|_| StatusCode::BAD_GATEWAY)?;
                if response.status() != StatusCode::OK {
                    return Err(StatusCode::BAD_GATEWAY);
                }
                let body = response.into_body().collect().await; // the whole body
                body.map_err(|_| StatusCode::BAD_GATEWAY)?;
                Ok(())
            }
        }
    }

    async fn base(&self, id: u64) -> Result<u64, StatusCode> {
        self.call(Call::Base).await?;
        Ok(id)
    }

    async fn detail(&self, id: u64) -> Result<UserDetail, StatusCode> {
        self.call(Call::Detail).await?;
        Ok(UserDetail {
            name: format!("User-{id}"),
            age: 25,
            sex: 1,
        })
    }

    async fn extra(&self, _id: u64) -> Result<UserExtra, StatusCode> {
        self.call(Call::Extra).await?;
        Ok(UserExtra {
            phone: "13800138000",
            level: "VIP会员",
        })
    }
}

/// The largest user id, 2^53 − 1: the integers every JSON reader holds exactly
/// (docs/contract.md, "Error answers").
const MAX_ID: u64 = (1 << 53) - 1;

/// The id of `/user/{id}`: ASCII digits only (no sign, no spaces; leading zeros
/// allowed), 1..=MAX_ID. Anything else is a path no workload serves: 404.
pub fn parse_id(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|id| (1..=MAX_ID).contains(id))
}

/// The handler's work, shared by the axum and the bare hyper servers: base, then
/// detail and extra concurrently in this task (`tokio::join!`, no spawn).
pub async fn user_of(downstream: &Downstream, id: u64) -> Result<User, StatusCode> {
    let id = downstream.base(id).await?;
    let (detail, extra) = tokio::join!(downstream.detail(id), downstream.extra(id));
    let (detail, extra) = (detail?, extra?);
    Ok(User {
        id,
        name: detail.name,
        age: detail.age,
        sex: detail.sex,
        phone: extra.phone,
        level: extra.level,
    })
}

/// axum's handler. The id is taken as a String and parsed by `parse_id`: `Path<u64>`
/// would answer a non-number with axum's 400 and take `0` or `+5`.
async fn user(
    State(downstream): State<Arc<Downstream>>,
    Path(id): Path<String>,
) -> Result<Json<User>, StatusCode> {
    let id = parse_id(&id).ok_or(StatusCode::NOT_FOUND)?;
    Ok(Json(user_of(&downstream, id).await?))
}

/// axum's `GET /waits` (routed with `downstream=inproc` only).
async fn waits(
    State(downstream): State<Arc<Downstream>>,
) -> Result<([(axum::http::HeaderName, &'static str); 1], String), StatusCode> {
    let body = downstream.waits_json().ok_or(StatusCode::NOT_FOUND)?;
    Ok(([(CONTENT_TYPE, "application/json")], body))
}

pub struct HttpAggregate {
    pub bind: Ipv4Addr,
    pub port: u16,
    delays: [u64; 3],
    /// `Some(host:port)` for `downstream=http`.
    backend: Option<SocketAddrV4>,
}

impl HttpAggregate {
    pub fn new(p: &Params) -> HttpAggregate {
        let _ = p.u64("pool-size"); // validated, then ignored: not pooled
        let backend_host = crate::server::ipv4(p, "backend-host");
        let backend_port = crate::server::port(p, "backend-port");
        let backend = match p.str("downstream") {
            "inproc" => None, // backend-host and backend-port are unused then (port 0)
            "http" if backend_port == 0 => p.reject("backend-port", "downstream=http needs a port"),
            "http" => Some(SocketAddrV4::new(backend_host, backend_port)),
            _ => p.reject("downstream", "expected inproc or http"),
        };
        HttpAggregate {
            bind: crate::server::ipv4(p, "bind"),
            port: crate::server::port(p, "port"),
            delays: [p.u64("base-ms"), p.u64("detail-ms"), p.u64("extra-ms")],
            backend,
        }
    }

    /// The router and the ready line's extra keys. Called inside the runtime.
    pub fn router(&self) -> (Router, Vec<(&'static str, String)>) {
        let (downstream, info) = self.downstream(ClientKind::Reqwest);
        let mut router = Router::new().route("/user/{id}", get(user));
        if self.backend.is_none() {
            router = router.route("/waits", get(waits));
        }
        let router = router.with_state(downstream);
        (router, info)
    }

    /// The downstream calls (with `client` for `downstream=http`) and the ready
    /// line's extra keys. Called inside the runtime.
    pub fn downstream(&self, client: ClientKind) -> (Arc<Downstream>, Vec<(&'static str, String)>) {
        let (downstream, info) = match (self.backend, client) {
            (None, _) => (
                Downstream::InProc(self.delays.map(Duration::from_millis), Waits::new()),
                vec![("downstream", "inproc".to_string())],
            ),
            (Some(backend), ClientKind::Hyper) => hyper_downstream(backend, self.delays),
            (Some(backend), ClientKind::Reqwest) => {
                // reqwest's defaults kept: pool_max_idle_per_host = usize::MAX and no
                // cap on open connections per host (unbounded), pool_idle_timeout
                // 90 s, TCP_NODELAY on, no timeouts. no_proxy(): the backend is reached
                // directly, so no HTTP_PROXY lookup or per-request proxy match.
                let client = reqwest::Client::builder()
                    .no_proxy()
                    .build()
                    .unwrap_or_else(|e| crate::fail(&format!("building the HTTP client: {e}")));
                let urls = self.delays.map(|ms| {
                    Url::parse(&format!("http://{backend}/delay/{ms}"))
                        .unwrap_or_else(|e| crate::fail(&format!("backend URL: {e}")))
                });
                let pool = format!(
                    "reqwest {REQWEST_VERSION} (hyper-util legacy pool): unbounded per host, idle timeout 90 s"
                );
                (
                    Downstream::Http(client, urls),
                    vec![("downstream", "http".to_string()), ("client_pool", pool)],
                )
            }
        };
        (Arc::new(downstream), info)
    }
}

/// rust-hyper's client: hyper-util's legacy `Client` with its defaults (the ones
/// reqwest keeps): pool_max_idle_per_host = usize::MAX, no cap on open connections
/// per host, idle timeout 90 s (pruned by the `TokioTimer`, as reqwest sets it);
/// `HttpConnector` with TCP_NODELAY (as reqwest sets it), an IP literal needs no
/// resolver; HTTP/1.1 only, no proxy, no timeouts.
fn hyper_downstream(
    backend: SocketAddrV4,
    delays: [u64; 3],
) -> (Downstream, Vec<(&'static str, String)>) {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client = HyperClient::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .build(connector);
    let uris = delays.map(|ms| {
        format!("http://{backend}/delay/{ms}")
            .parse::<Uri>()
            .unwrap_or_else(|e| crate::fail(&format!("backend URI: {e}")))
    });
    let pool = format!(
        "hyper-util {HYPER_UTIL_VERSION} legacy Client: unbounded per host, idle timeout 90 s"
    );
    (
        Downstream::Hyper(client, uris),
        vec![("downstream", "http".to_string()), ("client_pool", pool)],
    )
}
