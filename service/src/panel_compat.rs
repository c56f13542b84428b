//! TEMPORARY ADAPTER (issue 30, A3), to delete when the typed invoice operations land (`list_invoices`, `invoice`,
//! `kude`, `signed_xml` returning the typed [`Invoice`] resource or an [`ApiError`]): what the account panel
//! (`kuatia-panel`) needs of the invoice routes, as typed values, so that the panel reads no JSON out of an answer.
//! Only the panel calls it; it is hidden from the docs.

use super::*;

/// A page of [`Service::panel_invoices`]: its invoices, the total and the cursor of the next page.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct PanelInvoices {
    /// The invoices of the page.
    pub data: Vec<Invoice>,
    /// Invoices matching the filters.
    pub total: usize,
    /// `meta.next_cursor` of `GET /v1/facturas`.
    pub next_cursor: Option<String>,
}

/// The error of a `/v1` answer that is not a success.
fn api_error(r: &HttpResponse) -> ApiError {
    let v = r.json();
    let text = |k: &str| v["error"][k].as_str().unwrap_or("error").to_string();
    ApiError {
        status: r.status,
        code: text("code"),
        message: text("message"),
        details: serde_json::from_value(v["error"]["details"].clone()).unwrap_or_default(),
    }
}

impl<S: Store> Service<S> {
    /// `GET /v1/facturas?<query>` of the principal, typed (temporary, see the module).
    #[doc(hidden)]
    pub fn panel_invoices(&self, p: &Principal, query: &str) -> Result<PanelInvoices, ApiError> {
        let r = self.list_invoices(p, query);
        if r.status != 200 {
            return Err(api_error(&r));
        }
        #[derive(Deserialize)]
        struct Meta {
            total: usize,
            next_cursor: Option<String>,
        }
        #[derive(Deserialize)]
        struct Row {
            id: String,
        }
        #[derive(Deserialize)]
        struct List {
            data: Vec<Row>,
            meta: Meta,
        }
        let list: List = serde_json::from_slice(&r.body)
            .map_err(|e| ApiError::new(500, code::INTERNAL_ERROR, &e.to_string()))?;
        let data = list
            .data
            .iter()
            .filter_map(|row| self.store.invoice(&p.account.id, &row.id))
            .map(|record| self.invoice_resource(record))
            .collect();
        Ok(PanelInvoices {
            data,
            total: list.meta.total,
            next_cursor: list.meta.next_cursor,
        })
    }

    /// One of the principal's invoices, typed, as `GET /v1/facturas/{id}` shows it (temporary, see the module).
    #[doc(hidden)]
    pub fn panel_invoice(&self, p: &Principal, id: &str) -> Option<Invoice> {
        let record = self
            .store
            .invoice(&p.account.id, id)
            .filter(|i| i.environment == p.env)?;
        let parts = self.documents.get_or_load(&record, || Some(record.xml.clone()));
        Some(Invoice::of(&self.config.base_url, record, parts))
    }

    /// `GET /v1/facturas/{id}/kude` (the PDF answer) or its error (temporary, see the module).
    #[doc(hidden)]
    pub fn panel_kude(&self, p: &Principal, id: &str) -> Result<HttpResponse, ApiError> {
        let r = self.kude(p, id);
        if r.status == 200 {
            Ok(r)
        } else {
            Err(api_error(&r))
        }
    }

    /// `GET /v1/facturas/{id}/xml` (the signed XML answer) or its error (temporary, see the module).
    #[doc(hidden)]
    pub fn panel_signed_xml(&self, p: &Principal, id: &str) -> Result<HttpResponse, ApiError> {
        let r = self.signed_xml(p, id);
        if r.status == 200 {
            Ok(r)
        } else {
            Err(api_error(&r))
        }
    }
}
