//! `http-hello` (seed 004): `GET /hello` → 200, `text/plain`, a static body of
//! 199 × `x` and `\n` (200 bytes), sent as `Bytes::from_static` (no copy, no
//! refcount per request). axum answers every other path with 404.

use std::net::Ipv4Addr;

use axum::Router;
use axum::body::Bytes;
use axum::http::HeaderValue;
use axum::http::header::{CONTENT_TYPE, HeaderName};
use axum::routing::get;

use crate::Params;

pub const PARAMS: &[&str] = &["port", "bind", "pool-size"];

/// The body, made once (at compile time) and shared by every response.
pub static BODY: [u8; 200] = {
    let mut body = [b'x'; 200];
    body[199] = b'\n';
    body
};

async fn hello() -> ([(HeaderName, HeaderValue); 1], Bytes) {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("text/plain"))],
        Bytes::from_static(&BODY),
    )
}

pub struct HttpHello {
    pub bind: Ipv4Addr,
    pub port: u16,
}

impl HttpHello {
    pub fn new(p: &Params) -> HttpHello {
        let _ = p.u64("pool-size"); // validated, then ignored: not pooled
        HttpHello {
            bind: crate::server::ipv4(p, "bind"),
            port: crate::server::port(p, "port"),
        }
    }

    pub fn router(&self) -> Router {
        Router::new().route("/hello", get(hello))
    }
}
