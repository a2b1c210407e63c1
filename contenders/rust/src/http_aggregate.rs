//! `http-aggregate` (seed 003): `GET /user/{id}` waits for the base call, then
//! for detail and extra concurrently (`tokio::join!` in the handler's own task,
//! no spawn), and answers the assembled user as JSON (`axum::Json`: serde_json
//! on a `#[derive(Serialize)]` struct, `Content-Type: application/json`).
//!
//! Downstream calls: `inproc` = `tokio::time::sleep`; `http` = a GET to the
//! latency backend with one shared `reqwest::Client` (its connection pool is
//! unbounded per host), the whole body read, anything but 200 → 502.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
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

/// The exact version pinned with `=` in Cargo.toml.
const REQWEST_VERSION: &str = "0.13.5";

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
struct User {
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

// Made once and shared behind an Arc, so the variants' size difference is moot.
#[allow(clippy::large_enum_variant)]
enum Downstream {
    /// `tokio::time::sleep` of each call's delay.
    InProc([Duration; 3]),
    /// `GET http://<backend-host>:<backend-port>/delay/<ms>`, URLs parsed once.
    Http(reqwest::Client, [Url; 3]),
}

impl Downstream {
    async fn call(&self, call: Call) -> Result<(), StatusCode> {
        match self {
            Downstream::InProc(delays) => {
                sleep(delays[call as usize]).await;
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

async fn user(
    State(downstream): State<Arc<Downstream>>,
    Path(id): Path<u64>,
) -> Result<Json<User>, StatusCode> {
    let id = downstream.base(id).await?;
    let (detail, extra) = tokio::join!(downstream.detail(id), downstream.extra(id));
    let (detail, extra) = (detail?, extra?);
    Ok(Json(User {
        id,
        name: detail.name,
        age: detail.age,
        sex: detail.sex,
        phone: extra.phone,
        level: extra.level,
    }))
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
        let (downstream, info) = match self.backend {
            None => (
                Downstream::InProc(self.delays.map(Duration::from_millis)),
                vec![("downstream", "inproc".to_string())],
            ),
            Some(backend) => {
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
        let router = Router::new()
            .route("/user/{id}", get(user))
            .with_state(Arc::new(downstream));
        (router, info)
    }
}
