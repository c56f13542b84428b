//! `kuatia serve` end to end, accounts and keys: authentication and validation errors, accounts isolated from each
//! other, revocation taking effect at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, register_webhook, Api};
use common::{receiver, temp_dir};
use kuatia_server::start;
use kuatia_service::auth::Environment;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_and_validation_errors() {
    let dir = temp_dir("errors");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let http = reqwest::Client::new();
    let url = format!("http://{}/v1/facturas", server.addr);

    let r = http.get(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["ok"], false);

    // Right shape, wrong secret.
    let mut wrong = key.clone();
    let last = if wrong.ends_with('a') { "b" } else { "a" };
    wrong.pop();
    wrong.push_str(last);
    let r = http
        .get(&url)
        .bearer_auth(&wrong)
        .header("X-Environment", "sandbox")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    let api = Api::new(&server, &key);
    // Invalid RUC check digit: 422 with the core's code and findings.
    let mut bad = factura(None);
    bad["receptor"]["ruc"] = json!("80069563-9");
    let (code, v) = api.post("/v1/facturas", &bad).await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["code"], "INVALID_RUC");
    assert!(!v["error"]["details"].as_array().unwrap().is_empty());

    // No stamp for this document type: INVALID_TIMBRADO.
    let mut other = factura(None);
    other["tipo_documento"] = json!(7);
    let (code, v) = api.post("/v1/facturas", &other).await;
    assert_eq!(code, 422, "{v}");

    // Body over the limit: refused by the host before the core sees it.
    // The server answers 413 from Content-Length and closes; a client still writing the body may see the close first
    // (broken pipe / reset) instead of the answer — both mean the body was refused unread.
    let big = "x".repeat(2 * 1024 * 1024);
    let r = api
        .http
        .post(&url)
        .bearer_auth(&key)
        .header("X-Environment", "sandbox")
        .body(big)
        .send()
        .await;
    match r {
        Ok(r) => assert_eq!(r.status().as_u16(), 413),
        Err(e) => {
            let text = format!("{e:?}");
            assert!(
                text.contains("BrokenPipe") || text.contains("ConnectionReset"),
                "{text}"
            );
        }
    }

    let (code, v) = api.get("/v1/nothing").await;
    assert_eq!(code, 404, "{v}");
    let (code, v) = api.get("/v1/facturas/fact_unknown").await;
    assert_eq!(code, 404, "{v}");
    // Written in Spanish by default, in English on request; the code and the rule are the same (issue 32).
    assert_eq!(
        v["error"]["message"], "No existe una factura con ese id",
        "{v}"
    );
    let en = api
        .http
        .get(format!("http://{}/v1/facturas/fact_unknown", server.addr))
        .bearer_auth(&key)
        .header("X-Environment", "sandbox")
        .header("Accept-Language", "en-US,en;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(
        en.headers().get("content-language").map(|v| v.as_bytes()),
        Some(&b"en"[..])
    );
    let en: serde_json::Value = en.json().await.unwrap();
    assert_eq!(en["error"]["message"], "no invoice with that id", "{en}");
    assert_eq!(
        (&en["error"]["code"], &en["error"]["rule"]),
        (&v["error"]["code"], &v["error"]["rule"])
    );
    let (code, list) = api.get("/v1/facturas").await;
    assert_eq!((code, &list["meta"]["total"]), (200, &json!(0)), "{list}");

    // A production key made offline is accepted by auth but the account has no production profile yet.
    server.shutdown().await;
    let live = kuatia_server::create_key(dir.clone(), Environment::Production).unwrap();
    assert!(live.starts_with("dk_live_"));
    let server = start(config(&dir)).await.unwrap();
    assert!(server.new_sandbox_key.is_none());
    let r = reqwest::Client::new()
        .post(format!("http://{}/v1/facturas", server.addr))
        .bearer_auth(&live)
        .body(factura(None).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 422);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "PRODUCTION_NOT_CONFIGURED");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_are_isolated_and_revocation_is_immediate() {
    let dir = temp_dir("accounts");
    let server = start(config(&dir)).await.unwrap();
    // A second account, created by another process's path (`kuatia accounts create`) while the server runs.
    let (b_account, b_key) =
        kuatia_server::accounts::create_account(dir.clone(), "Empresa B").unwrap();
    let a = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let b = Api::new(&server, &b_key);
    let (port, _rx) = receiver().await;
    register_webhook(&a, port).await;
    let (_, hooks) = a.get("/v1/webhooks").await;
    let hook = hooks["data"][0]["id"].as_str().unwrap().to_string();
    let (code, v) = a.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let inv = v["data"]["id"].as_str().unwrap().to_string();
    let log = a
        .wait_deliveries(&hook, "a delivery queued", |log| {
            log["data"][0]["id"].is_string()
        })
        .await;
    let delivery = log["data"][0]["id"].as_str().unwrap().to_string();

    // B sees nothing of A: lists are empty, every id of A is 404.
    let (code, list) = b.get("/v1/facturas").await;
    assert_eq!((code, list["meta"]["total"].clone()), (200, json!(0)));
    let (_, list) = b.get("/v1/webhooks").await;
    assert_eq!(list["data"], json!([]));
    for path in [
        format!("/v1/facturas/{inv}"),
        format!("/v1/facturas/{inv}/xml"),
        format!("/v1/facturas/{inv}/kude"),
        format!("/v1/webhooks/{hook}"),
        format!("/v1/webhooks/{hook}/deliveries"),
    ] {
        let (code, v) = b.get(&path).await;
        assert_eq!(code, 404, "{path}: {v}");
        assert_eq!(v["error"]["code"], "NOT_FOUND", "{path}");
    }
    for path in [
        format!("/v1/webhooks/{hook}/rotate"),
        format!("/v1/webhooks/{hook}/deliveries/{delivery}/redeliver"),
        format!("/v1/facturas/{inv}/cancel"),
    ] {
        let (code, v) = b
            .post(&path, &json!({"motivo": "Error en los datos"}))
            .await;
        assert_eq!(code, 404, "{path}: {v}");
    }
    let r = b
        .send(
            reqwest::Method::DELETE,
            &format!("/v1/webhooks/{hook}"),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status().as_u16(), 404);
    let (code, _) = b.get(&format!("/v1/facturas?starting_after={inv}")).await;
    assert_eq!(code, 400);
    // A still has all of it, and B's own invoice is B's only.
    assert_eq!(a.get(&format!("/v1/webhooks/{hook}")).await.0, 200);
    assert_eq!(a.get(&format!("/v1/facturas/{inv}/xml")).await.0, 200);
    let (code, v) = b.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let b_inv = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(a.get(&format!("/v1/facturas/{b_inv}")).await.0, 404);
    assert_eq!(a.get("/v1/facturas").await.1["meta"]["total"], 1);

    // Revoking B's key from outside (`kuatia keys revoke`) takes effect at the running server's next request.
    let prefix = &b_key[..16];
    let (owner, _) = kuatia_server::accounts::revoke_key(dir.clone(), prefix)
        .unwrap()
        .unwrap();
    assert_eq!(owner, b_account.id);
    let (code, v) = b.get("/v1/facturas").await;
    assert_eq!(code, 401, "{v}");
    assert_eq!(v["error"]["code"], "UNAUTHORIZED");
    assert_eq!(a.get("/v1/facturas").await.0, 200);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
