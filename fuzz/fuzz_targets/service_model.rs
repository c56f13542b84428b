//! Random sequences of API operations against the sans-IO service with the in-memory store, checked against a
//! model: two accounts, creates with and without idempotency keys, reads, listings, cancellations and clock ticks.
//! What the model knows must hold after every step: a new invoice is 201 with a number never used before in its
//! account; a replayed key gives the first answer byte for byte, a reused key with another body is 409; an account
//! reads its own invoices (200, same id) and never another's (404); listings count exactly the account's
//! invoices; no answer is a 5xx.
#![no_main]

use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, HttpResponse, MemoryStore, Service};
use kuatia_core::sign::Signer;
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use time::OffsetDateTime;

struct FuzzHost {
    now: i64,
    rng: u32,
}

impl Host for FuzzHost {
    fn now(&mut self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.now).unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }
    fn random_u32(&mut self) -> u32 {
        self.rng = self.rng.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.rng
    }
    fn signer(&self, _account: &str, _env: Environment) -> Option<&dyn Signer> {
        None
    }
}

#[derive(Debug, Arbitrary)]
enum Op {
    Create {
        account: bool,
        key: Option<u8>,
        variant: u8,
    },
    Get {
        account: bool,
        pick: u16,
    },
    GetUnknown {
        account: bool,
        id: String,
    },
    List {
        account: bool,
        page: u8,
        per_page: u8,
    },
    Cancel {
        account: bool,
        pick: u16,
    },
    Tick {
        seconds: u16,
    },
}

fn body(variant: u8) -> Value {
    let simulate = ["approved", "rejected", "approved"][usize::from(variant % 3)];
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": format!("Servicio {}", variant / 3), "cantidad": 1 + u32::from(variant % 7),
                   "precio_unitario": 1_100_000, "iva": 10}],
        "condicion_pago": 1,
        "_simulate": simulate,
    })
}

fn json_of(r: &HttpResponse) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

struct World {
    svc: Service<MemoryStore>,
    host: FuzzHost,
    keys: [String; 2],
    /// Per account: the invoice ids created, in order, and the numbers they got.
    ids: [Vec<String>; 2],
    numbers: [BTreeSet<String>; 2],
    /// (account, idempotency key) -> (body variant, first answer).
    idem: BTreeMap<(usize, u8), (u8, HttpResponse)>,
}

impl World {
    fn call(
        &mut self,
        a: usize,
        method: &str,
        path: &str,
        body: Option<&Value>,
        idem: Option<u8>,
    ) -> HttpResponse {
        let mut headers = vec![
            (
                "Authorization".to_string(),
                format!("Bearer {}", self.keys[a]),
            ),
            ("X-Environment".to_string(), "sandbox".to_string()),
        ];
        if let Some(k) = idem {
            headers.push(("Idempotency-Key".to_string(), format!("key-{k}")));
        }
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers,
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        let r = self.svc.handle(&req, &mut self.host);
        assert!(
            r.status < 500,
            "{method} {path}: {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        r
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Create {
                account,
                key,
                variant,
            } => {
                let a = usize::from(account);
                let key = key.map(|k| k % 4);
                let b = body(variant);
                let r = self.call(a, "POST", "/v1/facturas", Some(&b), key);
                if let Some(k) = key {
                    if let Some((v, first)) = self.idem.get(&(a, k)) {
                        if body(*v) == b {
                            // The first answer again (status and body), marked as a replay.
                            assert_eq!(
                                (r.status, &r.body),
                                (first.status, &first.body),
                                "a replayed idempotency key must give the first answer"
                            );
                            assert_eq!(
                                r.header("Idempotent-Replayed"),
                                Some("true"),
                                "a replay says it is one"
                            );
                        } else {
                            assert_eq!(
                                r.status, 409,
                                "a reused key with another body is a conflict"
                            );
                        }
                        return;
                    }
                }
                assert_eq!(
                    r.status,
                    201,
                    "create: {}",
                    String::from_utf8_lossy(&r.body)
                );
                let v = json_of(&r);
                let id = v["data"]["id"].as_str().expect("an id").to_string();
                let numero = v["data"]["numero"].as_str().expect("a number").to_string();
                assert!(
                    self.numbers[a].insert(numero.clone()),
                    "number {numero} given twice"
                );
                assert!(
                    !self.ids.iter().flatten().any(|i| *i == id),
                    "id {id} given twice"
                );
                self.ids[a].push(id);
                if let Some(k) = key {
                    self.idem.insert((a, k), (variant, r));
                }
            }
            Op::Get { account, pick } => {
                let owner = usize::from(pick) % 2;
                let Some(id) = pick_id(&self.ids[owner], pick) else {
                    return;
                };
                let a = usize::from(account);
                let r = self.call(a, "GET", &format!("/v1/facturas/{id}"), None, None);
                if a == owner {
                    assert_eq!(r.status, 200);
                    assert_eq!(json_of(&r)["data"]["id"], json!(id));
                } else {
                    assert_eq!(r.status, 404, "an account reads another's invoice");
                }
            }
            Op::GetUnknown { account, id } => {
                if self.ids.iter().flatten().any(|i| *i == id)
                    || id.contains(['/', '?', '#'])
                    || id.is_empty()
                {
                    return;
                }
                let r = self.call(
                    usize::from(account),
                    "GET",
                    &format!("/v1/facturas/{id}"),
                    None,
                    None,
                );
                assert!(
                    r.status == 404 || r.status == 400,
                    "unknown id: {}",
                    r.status
                );
            }
            Op::List {
                account,
                page,
                per_page,
            } => {
                let a = usize::from(account);
                let (page, per_page) = (1 + u32::from(page % 8), 1 + u32::from(per_page % 20));
                let r = self.call(
                    a,
                    "GET",
                    &format!("/v1/facturas?page={page}&per_page={per_page}"),
                    None,
                    None,
                );
                assert_eq!(r.status, 200);
                let v = json_of(&r);
                let total = self.ids[a].len();
                assert_eq!(v["meta"]["total"], json!(total));
                let skip = usize::try_from((page - 1) * per_page).unwrap_or(usize::MAX);
                let shown = total
                    .saturating_sub(skip)
                    .min(usize::try_from(per_page).unwrap_or(0));
                let data = v["data"].as_array().expect("a list");
                assert_eq!(data.len(), shown);
                for d in data {
                    let id = d["id"].as_str().expect("an id");
                    assert!(
                        self.ids[a].iter().any(|i| i == id),
                        "listed {id}, not the account's"
                    );
                }
            }
            Op::Cancel { account, pick } => {
                let owner = usize::from(pick) % 2;
                let Some(id) = pick_id(&self.ids[owner], pick) else {
                    return;
                };
                let a = usize::from(account);
                let r = self.call(
                    a,
                    "POST",
                    &format!("/v1/facturas/{id}/cancel"),
                    Some(&json!({"motivo": "Error de carga en el sistema"})),
                    None,
                );
                if a != owner {
                    assert_eq!(r.status, 404, "an account cancels another's invoice");
                }
            }
            Op::Tick { seconds } => {
                self.host.now += i64::from(seconds) * 60;
                self.svc.tick(&mut self.host);
            }
        }
    }
}

fn pick_id(ids: &[String], pick: u16) -> Option<String> {
    (!ids.is_empty()).then(|| ids[usize::from(pick / 2) % ids.len()].clone())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut host = FuzzHost {
        now: 1_741_612_260,
        rng: 7,
    };
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (_, k0) = svc.create_account("Empresa A", &mut host);
    let (_, k1) = svc.create_account("Empresa B", &mut host);
    let mut world = World {
        svc,
        host,
        keys: [k0, k1],
        ids: [Vec::new(), Vec::new()],
        numbers: [BTreeSet::new(), BTreeSet::new()],
        idem: BTreeMap::new(),
    };
    for _ in 0..64 {
        let Ok(op) = Op::arbitrary(&mut u) else { break };
        world.step(op);
    }
});
