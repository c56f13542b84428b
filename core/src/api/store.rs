//! Persistence of the service behind a small trait; [`MemoryStore`] is the in-memory implementation (tests,
//! browsers, single-process hosts). Hosts bring SQLite, PostgreSQL, ... by implementing [`Store`].

use super::auth::{Environment, StoredKey};
use super::transmit::Transmission;
use super::webhook::{Delivery, Webhook};
use super::HttpResponse;
use crate::error::Finding;
use crate::lifecycle::{Estado, SifenError};
use crate::numbering::{Gap, MemoryNumbering, Numbering, NumberingKey};
use crate::profile::Emisor;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// An account: its profiles per environment and its hashed keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// `acct_…` identifier.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Emitter profile used by sandbox keys (default: the built-in sandbox profile).
    pub sandbox: Emisor,
    /// Emitter profile used by live keys; `None` until the account is set up for production.
    pub production: Option<Emisor>,
    /// Whether the account completed a sandbox flow (spec §1 prerequisite 1).
    pub sandbox_completed: bool,
    /// Whether the RUC is enabled for the authority's API programme (spec §1 prerequisite 4), as the host knows it.
    pub ruc_enabled: bool,
    /// Hashed API keys.
    pub keys: Vec<StoredKey>,
}

impl Account {
    /// The profile of an environment.
    pub fn profile(&self, env: Environment) -> Option<&Emisor> {
        match env {
            Environment::Sandbox => Some(&self.sandbox),
            Environment::Production => self.production.as_ref(),
        }
    }
}

/// A stored invoice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceRecord {
    /// `fact_…` identifier.
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// Environment it was created in.
    pub environment: Environment,
    /// Current state.
    pub status: Estado,
    /// CDC.
    pub cdc: String,
    /// `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// Document type code.
    pub tipo_documento: u8,
    /// Emission date-time (Paraguay local, `YYYY-MM-DDThh:mm:ss`).
    pub fecha_emision: String,
    /// Grand total as written in the XML (absent for remission notes).
    pub total: Option<String>,
    /// Currency.
    pub moneda: Option<String>,
    /// The `_simulate` value given at creation (sandbox).
    pub simulate: Option<String>,
    /// Reasons of a rejection.
    pub sifen_errors: Vec<SifenError>,
    /// SIFEN authorization number once approved.
    pub protocolo: Option<String>,
    /// The signed XML (or the unsigned simulation in a sandbox without a signer).
    pub xml: String,
    /// `dCarQR`.
    pub qr: String,
    /// Whether `xml` carries an XMLDSig signature.
    pub signed: bool,
    /// Unix time of creation.
    pub created_at: i64,
    /// Unix time of the last state change.
    pub updated_at: i64,
    /// Production: where the document stands in its transmission to SIFEN (idle in the sandbox).
    #[serde(default, skip_serializing_if = "Transmission::is_idle")]
    pub transmission: Transmission,
    /// `iTipEmi`: 1 normal, 2 contingency (issued while SIFEN was unreachable; the KuDE carries the legend).
    #[serde(default = "normal_emission")]
    pub tipo_emision: u8,
    /// Unix time of the approval (the cancellation window counts from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_at: Option<i64>,
    /// The cancellation asked for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation: Option<Cancellation>,
}

fn normal_emission() -> u8 {
    1
}

/// Where a cancellation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancellationStatus {
    /// The signed event waits for SIFEN's answer.
    Pending,
    /// SIFEN registered it: the invoice is `cancelled`.
    Approved,
    /// SIFEN refused it (see `error`): the invoice stays `approved`.
    Rejected,
}

/// A cancellation event (`rGeVeCan`) of an approved invoice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cancellation {
    /// Its state.
    pub status: CancellationStatus,
    /// The reason (`mOtEve`).
    pub motivo: String,
    /// Unix time of the request.
    pub requested_at: i64,
    /// The event `Id` (production).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<u64>,
    /// The signed `rGesEve` (production).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml: Option<String>,
    /// SIFEN's reason for a refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SifenError>,
}

/// What the service needs to persist.
pub trait Store {
    /// The account owning the key with this public id, and that key's stored form.
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)>;
    /// An account by id.
    fn account(&self, id: &str) -> Option<Account>;
    /// Creates or replaces an account.
    fn put_account(&mut self, account: Account);
    /// Stores a new invoice.
    fn insert_invoice(&mut self, invoice: InvoiceRecord);
    /// An invoice of an account.
    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord>;
    /// Replaces a stored invoice.
    fn update_invoice(&mut self, invoice: InvoiceRecord);
    /// A page of an account's invoices in one environment, newest first, and the total count.
    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        offset: usize,
        limit: usize,
    ) -> (Vec<InvoiceRecord>, usize);
    /// Sandbox invoices the simulated SIFEN still has to move (pending or sent, no `_simulate`).
    fn simulated_in_flight(&self) -> Vec<InvoiceRecord>;
    /// Invoices whose next SIFEN step ([`InvoiceRecord::transmission`]) is due at or before `now`, earliest due
    /// first, at most `limit`.
    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord>;
    /// Stores a webhook (with its secret).
    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook);
    /// An account's webhooks in one environment (with secrets, for signing).
    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook>;
    /// Reserves the next document number of a sequence of an account's environment (the numbering contract,
    /// [`crate::numbering`]; see [`StoreNumbering`]).
    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding>;
    /// Confirms a reserved number with the CDC of the document now stored.
    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding>;
    /// Reserved numbers of an account's environment that never became a document.
    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding>;
    /// A stored idempotent response of an account's environment: the request body's hash and the response. Keys are
    /// scoped by account *and* environment, so a sandbox answer is never replayed to a live key.
    fn idempotent(
        &self,
        account_id: &str,
        env: Environment,
        key: &str,
    ) -> Option<(String, HttpResponse)>;
    /// Stores an idempotent response.
    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        body_hash: String,
        response: HttpResponse,
    );
    /// Queues a delivery.
    fn put_delivery(&mut self, delivery: Delivery);
    /// Deliveries with status `pending` due at or before `now`.
    fn due_deliveries(&self, now: i64) -> Vec<Delivery>;
    /// A delivery by id.
    fn delivery(&self, id: &str) -> Option<Delivery>;
    /// A page of one webhook's deliveries, newest first, and their total count (the delivery log).
    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize);
}

/// One account environment's numbering in a [`Store`], as the pipeline's [`Numbering`].
pub struct StoreNumbering<'s, S: Store + ?Sized> {
    /// The store.
    pub store: &'s mut S,
    /// The account.
    pub account_id: &'s str,
    /// Its environment.
    pub env: Environment,
}

impl<S: Store + ?Sized> Numbering for StoreNumbering<'_, S> {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        self.store.reserve_number(self.account_id, self.env, key)
    }

    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding> {
        self.store
            .confirm_number(self.account_id, self.env, key, numero, cdc)
    }

    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        self.store.number_gaps(self.account_id, self.env)
    }
}

/// In-memory [`Store`].
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    accounts: BTreeMap<String, Account>,
    keys: HashMap<String, (String, StoredKey)>,
    invoices: BTreeMap<String, InvoiceRecord>,
    order: Vec<String>,
    webhooks: Vec<(String, Environment, Webhook)>,
    numbering: HashMap<(String, Environment), MemoryNumbering>,
    idempotency: HashMap<(String, Environment, String), (String, HttpResponse)>,
    deliveries: BTreeMap<String, Delivery>,
    /// Ids of sandbox invoices the simulator still moves, so a request does not scan every invoice.
    in_flight: std::collections::BTreeSet<String>,
    /// `(due_at, id)` of invoices with a SIFEN step to take.
    transmitting: std::collections::BTreeSet<(i64, String)>,
    /// The `due_at` under which each of those is indexed.
    transmit_due: HashMap<String, i64>,
}

fn simulated_in_flight(i: &InvoiceRecord) -> bool {
    i.environment == Environment::Sandbox
        && i.simulate.is_none()
        && matches!(i.status, Estado::Pending | Estado::Sent)
}

impl MemoryStore {
    fn track(&mut self, invoice: &InvoiceRecord) {
        if simulated_in_flight(invoice) {
            self.in_flight.insert(invoice.id.clone());
        } else {
            self.in_flight.remove(&invoice.id);
        }
        if let Some(due) = self.transmit_due.remove(&invoice.id) {
            self.transmitting.remove(&(due, invoice.id.clone()));
        }
        if !invoice.transmission.is_idle() {
            let due = invoice.transmission.due_at;
            self.transmit_due.insert(invoice.id.clone(), due);
            self.transmitting.insert((due, invoice.id.clone()));
        }
    }
}

impl Store for MemoryStore {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        self.keys.get(key_id).cloned()
    }

    fn account(&self, id: &str) -> Option<Account> {
        self.accounts.get(id).cloned()
    }

    fn put_account(&mut self, account: Account) {
        for k in &account.keys {
            self.keys
                .insert(k.key_id.clone(), (account.id.clone(), k.clone()));
        }
        self.accounts.insert(account.id.clone(), account);
    }

    fn insert_invoice(&mut self, invoice: InvoiceRecord) {
        self.track(&invoice);
        self.order.push(invoice.id.clone());
        self.invoices.insert(invoice.id.clone(), invoice);
    }

    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.invoices
            .get(id)
            .filter(|i| i.account_id == account_id)
            .cloned()
    }

    fn update_invoice(&mut self, invoice: InvoiceRecord) {
        self.track(&invoice);
        self.invoices.insert(invoice.id.clone(), invoice);
    }

    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        offset: usize,
        limit: usize,
    ) -> (Vec<InvoiceRecord>, usize) {
        let mine: Vec<&InvoiceRecord> = self
            .order
            .iter()
            .rev()
            .filter_map(|id| self.invoices.get(id))
            .filter(|i| i.account_id == account_id && i.environment == env)
            .collect();
        let total = mine.len();
        (
            mine.into_iter().skip(offset).take(limit).cloned().collect(),
            total,
        )
    }

    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        self.in_flight
            .iter()
            .filter_map(|id| self.invoices.get(id))
            .cloned()
            .collect()
    }

    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        self.transmitting
            .iter()
            .take_while(|(due, _)| *due <= now)
            .filter_map(|(_, id)| self.invoices.get(id))
            .take(limit)
            .cloned()
            .collect()
    }

    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        self.webhooks.push((account_id.to_string(), env, webhook));
    }

    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        self.webhooks
            .iter()
            .filter(|(a, e, _)| a == account_id && *e == env)
            .map(|(_, _, w)| w.clone())
            .collect()
    }

    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        self.numbering
            .entry((account_id.to_string(), env))
            .or_default()
            .reserve(key)
    }

    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        match self.numbering.get_mut(&(account_id.to_string(), env)) {
            Some(n) => n.confirm(key, numero, cdc),
            None => Err(crate::numbering::not_reserved(key, numero)),
        }
    }

    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        match self.numbering.get(&(account_id.to_string(), env)) {
            Some(n) => n.gaps(),
            None => Ok(Vec::new()),
        }
    }

    fn idempotent(
        &self,
        account_id: &str,
        env: Environment,
        key: &str,
    ) -> Option<(String, HttpResponse)> {
        self.idempotency
            .get(&(account_id.to_string(), env, key.to_string()))
            .cloned()
    }

    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        body_hash: String,
        response: HttpResponse,
    ) {
        self.idempotency.insert(
            (account_id.to_string(), env, key.to_string()),
            (body_hash, response),
        );
    }

    fn put_delivery(&mut self, delivery: Delivery) {
        self.deliveries.insert(delivery.id.clone(), delivery);
    }

    fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        self.deliveries
            .values()
            .filter(|d| d.status == "pending" && d.next_attempt_at <= now)
            .cloned()
            .collect()
    }

    fn delivery(&self, id: &str) -> Option<Delivery> {
        self.deliveries.get(id).cloned()
    }

    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        let mut mine: Vec<&Delivery> = self
            .deliveries
            .values()
            .filter(|d| d.webhook_id == webhook_id)
            .collect();
        mine.sort_by(|a, b| (b.first_due_at, &b.id).cmp(&(a.first_due_at, &a.id)));
        let total = mine.len();
        (
            mine.into_iter().skip(offset).take(limit).cloned().collect(),
            total,
        )
    }
}
