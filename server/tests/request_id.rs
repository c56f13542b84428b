//! Request ids (issue 33, logs): a real server on loopback takes a client's sane `X-Request-Id` as the answer's
//! `Request-Id` and puts it in error bodies; anything else the client sends as an id (control characters, CRLF, 500
//! characters, quotes, non-ASCII) is ignored, never echoed, and the answer gets a fresh `req_…` id.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{factura, serve};
use reqwest::Method;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fresh id of the server: `req_` and 24 hex digits.
fn is_fresh(id: &str) -> bool {
    id.len() == 28
        && id.starts_with("req_")
        && id[4..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The answer's `Request-Id` and its JSON body.
async fn answer(r: reqwest::Response) -> (u16, String, Value) {
    let status = r.status().as_u16();
    let id = r
        .headers()
        .get("request-id")
        .expect("every answer carries a Request-Id")
        .to_str()
        .unwrap()
        .to_string();
    let body = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap_or(Value::Null);
    (status, id, body)
}

#[tokio::test]
async fn a_sane_client_request_id_comes_back_in_the_header_and_the_error_body() {
    let (_dir, _server, api) = serve("reqid-sane").await;

    // An error answered by a reader (a lookup), one by the engine (a create refused) and one by the router.
    let r = api
        .send(
            Method::GET,
            "/v1/facturas/fact_doesnotexist",
            None,
            &[("X-Request-Id", "abc-123")],
        )
        .await;
    let (status, id, body) = answer(r).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(id, "abc-123");
    assert_eq!(body["ok"], false, "{body}");
    assert_eq!(body["error"]["request_id"], "abc-123", "{body}");
    assert_eq!(body["error"]["code"], "NOT_FOUND", "{body}");

    let mut bad = factura(Some("approved"));
    bad["items"] = serde_json::json!([]);
    let r = api
        .send(
            Method::POST,
            "/v1/facturas",
            Some(&bad),
            &[("X-Request-Id", "Trace.42:zZ_9-x")],
        )
        .await;
    let (status, id, body) = answer(r).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(id, "Trace.42:zZ_9-x");
    assert_eq!(body["error"]["request_id"], "Trace.42:zZ_9-x", "{body}");
    assert!(body["error"]["details"].is_array(), "{body}");

    let r = api
        .send(
            Method::GET,
            "/v1/nothing-here",
            None,
            &[("X-Request-Id", "r1")],
        )
        .await;
    let (status, id, body) = answer(r).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        (id.as_str(), &body["error"]["request_id"]),
        ("r1", &Value::from("r1"))
    );

    // The longest id taken: 128 characters.
    let long = "a".repeat(128);
    let r = api
        .send(
            Method::GET,
            "/v1/nothing-here",
            None,
            &[("X-Request-Id", &long)],
        )
        .await;
    let (_, id, body) = answer(r).await;
    assert_eq!(id, long);
    assert_eq!(body["error"]["request_id"], long.as_str());

    // A success keeps its body as it was: the id is in the header only.
    let r = api
        .send(
            Method::POST,
            "/v1/facturas",
            Some(&factura(Some("approved"))),
            &[("X-Request-Id", "create-1")],
        )
        .await;
    let (status, id, body) = answer(r).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(id, "create-1");
    assert_eq!(body["ok"], true, "{body}");
    assert!(!body.to_string().contains("create-1"), "{body}");

    // Without an id the server names the request itself, and the error body carries that name.
    let r = api
        .send(Method::GET, "/v1/facturas/fact_doesnotexist", None, &[])
        .await;
    let (_, id, body) = answer(r).await;
    assert!(is_fresh(&id), "{id}");
    assert_eq!(body["error"]["request_id"], id.as_str(), "{body}");
}

#[tokio::test]
async fn an_unsafe_client_request_id_is_replaced_by_a_fresh_one() {
    let (_dir, server, api) = serve("reqid-unsafe").await;

    let too_long = "a".repeat(129);
    let five_hundred = "x".repeat(500);
    let unsafe_ids: [&[u8]; 9] = [
        too_long.as_bytes(),
        five_hundred.as_bytes(),
        b"abc 123",
        b"abc\t123",
        b"abc\"},\"ok\":true,\"x\":\"",
        b"abc%0d%0aSet-Cookie:%20x=1",
        "ñandutí".as_bytes(),
        b"<script>alert(1)</script>",
        b"a/b",
    ];
    let mut seen = Vec::new();
    for sent in unsafe_ids {
        let r = api
            .http
            .get(format!("http://{}/v1/nothing-here", server.addr))
            .header(
                "X-Request-Id",
                reqwest::header::HeaderValue::from_bytes(sent).unwrap(),
            )
            .send()
            .await
            .unwrap();
        let (status, id, body) = answer(r).await;
        let shown = String::from_utf8_lossy(sent);
        assert_eq!(status, 404, "{shown}: {body}");
        assert!(is_fresh(&id), "{shown} gave {id}");
        assert_eq!(body["error"]["request_id"], id.as_str(), "{shown}: {body}");
        seen.push(id);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), unsafe_ids.len(), "every fresh id is new");

    // Two ids: neither is taken.
    let r = api
        .http
        .get(format!("http://{}/v1/nothing-here", server.addr))
        .header("X-Request-Id", "one")
        .header("X-Request-Id", "two")
        .send()
        .await
        .unwrap();
    let (_, id, _) = answer(r).await;
    assert!(is_fresh(&id), "{id}");

    // CRLF inside the id, written raw (a client library refuses to send it): the server never answers with the
    // injected header, and whatever it answers carries no part of the id.
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let injected = format!(
        "GET /v1/nothing-here HTTP/1.1\r\nHost: {}\r\nX-Request-Id: abc\rSet-Cookie: stolen=1\r\nConnection: close\r\n\r\n",
        server.addr
    );
    s.write_all(injected.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    common::guarded("the answer to a CR in the id", s.read_to_end(&mut raw))
        .await
        .ok();
    let raw = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    assert!(!raw.contains("stolen"), "{raw}");
    assert!(!raw.contains("request-id: abc"), "{raw}");
}

#[tokio::test]
async fn an_answer_the_host_makes_itself_carries_the_request_id_too() {
    // Every request past its deadline: the 503 REQUEST_TIMEOUT is written by the HTTP host, not the engine.
    let dir = common::temp_dir("reqid-deadline");
    let mut config = common::api::config(&dir);
    config.limits.request = std::time::Duration::from_nanos(1);
    let server = kuatia_server::start(config).await.unwrap();
    let api = common::api::Api::sandbox(&server);
    let r = api
        .send(
            Method::POST,
            "/v1/facturas",
            Some(&factura(None)),
            &[
                ("X-Request-Id", "deadline-7"),
                ("Idempotency-Key", "deadline-7"),
            ],
        )
        .await;
    let (status, id, body) = answer(r).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "REQUEST_TIMEOUT", "{body}");
    assert_eq!(id, "deadline-7");
    assert_eq!(body["error"]["request_id"], "deadline-7", "{body}");
}
