//! Invoices: the filtered list and one invoice (state, SIFEN's reasons of a rejection, KuDE and XML downloads).

use super::not_found;
use crate::form::{self, Form};
use crate::html::{esc, notice};
use crate::{caller, Ctx, Session};
use kuatia_service::auth::Environment;
use kuatia_service::{HttpResponse, Invoice, InvoiceFilter, Store};

pub(crate) fn status_label(s: &str) -> &'static str {
    match s {
        "pending" => "Pendiente",
        "sent" => "Enviada",
        "approved" => "Aprobada",
        "rejected" => "Rechazada",
        "cancelled" => "Anulada",
        _ => "Desconocido",
    }
}

pub(crate) fn badge(s: &str) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        esc(s),
        status_label(s)
    )
}

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn invoices_page(&self, s: &Session, query: &str) -> HttpResponse {
        let q = form::urlencoded(query.as_bytes());
        let caller = caller(s, &q, Environment::Sandbox);
        let env = caller.env;
        // The API's own filters, checks and 400 messages: every parameter but `entorno` goes to it as given.
        let api_query: Vec<&str> = query
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("entorno="))
            .filter(|p| !p.ends_with('='))
            .collect();
        let listed = InvoiceFilter::from_query(&api_query.join("&"), self.svc.config.max_per_page)
            .and_then(|filter| self.svc.list_invoices(&caller, &filter));
        let mut message = String::new();
        let mut rows = String::new();
        let (data, total, next_cursor) = match listed {
            Ok(page) => (page.data, page.meta.total, page.meta.next_cursor.flatten()),
            Err(e) => {
                message = notice("error", &esc(&super::error_text(&e)));
                (Vec::new(), 0, None)
            }
        };
        for inv in &data {
            rows.push_str(&format!(
                "<tr><td><a href=\"/panel/facturas/{id}?entorno={e}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"wide\">{}</td></tr>",
                esc(&inv.numero),
                esc(&inv.fecha_emision),
                esc(receptor_name(inv)),
                esc(&amount(inv.total.as_deref(), inv.moneda.as_deref())),
                badge(inv.status.as_str()),
                esc(&inv.cdc),
                id = esc(&inv.id),
                e = env.as_str(),
            ));
        }
        let next = match next_cursor {
            Some(c) => {
                let mut kept: Vec<String> = query
                    .split('&')
                    .filter(|p| {
                        !p.is_empty()
                            && !p.starts_with("starting_after=")
                            && !p.starts_with("page=")
                    })
                    .map(String::from)
                    .collect();
                kept.push(format!("starting_after={c}"));
                format!(
                    "<p><a href=\"/panel/facturas?{}\">Página siguiente</a></p>",
                    esc(&kept.join("&"))
                )
            }
            None => String::new(),
        };
        let sel = |name: &str, value: &str| {
            if q.get(name) == Some(value) {
                " selected"
            } else {
                ""
            }
        };
        let statuses: String = ["pending", "sent", "approved", "rejected", "cancelled"]
            .iter()
            .map(|st| {
                format!(
                    "<option value=\"{st}\"{}>{}</option>",
                    sel("status", st),
                    status_label(st)
                )
            })
            .collect();
        let noun = if total == 1 { "factura" } else { "facturas" };
        let table = if data.is_empty() {
            "<p>No hay facturas con esos filtros.</p>".to_string()
        } else {
            format!("<div class=\"table\"><table><caption class=\"hint\">{total} {noun}</caption><thead><tr><th scope=\"col\">Número</th><th scope=\"col\">Emisión</th><th scope=\"col\">Receptor</th><th scope=\"col\">Total</th><th scope=\"col\">Estado</th><th scope=\"col\" class=\"wide\">CDC</th></tr></thead><tbody>{rows}</tbody></table></div>{next}")
        };
        let body = format!(
            "{message}<form method=\"get\" action=\"/panel/facturas\"><fieldset><legend>Filtros</legend>\
<label for=\"entorno\">Entorno</label><select id=\"entorno\" name=\"entorno\"><option value=\"sandbox\"{es}>Sandbox (pruebas)</option><option value=\"produccion\"{ep}>Producción</option></select>\
<label for=\"status\">Estado</label><select id=\"status\" name=\"status\"><option value=\"\">Todos</option>{statuses}</select>\
<label for=\"numero\">Número (EEE-PPP-NNNNNNN)</label><input type=\"text\" id=\"numero\" name=\"numero\" value=\"{numero}\">\
<label for=\"cdc\">CDC</label><input type=\"text\" id=\"cdc\" name=\"cdc\" value=\"{cdc}\">\
<label for=\"receptor_ruc\">RUC del receptor</label><input type=\"text\" id=\"receptor_ruc\" name=\"receptor_ruc\" value=\"{rruc}\">\
<label for=\"tipo_documento\">Tipo de documento</label><select id=\"tipo_documento\" name=\"tipo_documento\"><option value=\"\">Todos</option><option value=\"1\"{t1}>1 Factura electrónica</option><option value=\"4\"{t4}>4 Autofactura</option><option value=\"5\"{t5}>5 Nota de crédito</option><option value=\"6\"{t6}>6 Nota de débito</option><option value=\"7\"{t7}>7 Nota de remisión</option></select>\
<label for=\"created_from\">Creadas desde (RFC 3339, p. ej. 2025-01-31T00:00:00-03:00)</label><input type=\"text\" id=\"created_from\" name=\"created_from\" value=\"{cf}\">\
<label for=\"created_to\">Creadas hasta</label><input type=\"text\" id=\"created_to\" name=\"created_to\" value=\"{ct}\">\
<button type=\"submit\">Filtrar</button></fieldset></form>{table}\
<form method=\"get\" action=\"/panel/archivo\"><fieldset><legend>Archivo del mes para el contador</legend>\
<p class=\"hint\">Un zip con el XML firmado y el KuDE de cada documento emitido en el mes (fecha de emisión, hora de Paraguay), index.csv y manifest.json con la suma SHA-256 de cada archivo.</p>\
<input type=\"hidden\" name=\"entorno\" value=\"{env}\">\
<label for=\"mes\">Mes de emisión (AAAA-MM)</label><input type=\"month\" id=\"mes\" name=\"mes\" required pattern=\"[0-9]{{4}}-[0-9]{{2}}\" placeholder=\"2026-11\">\
<button type=\"submit\">Descargar archivo del mes</button></fieldset></form>",
            env = env.as_str(),
            es = sel("entorno", "sandbox"),
            ep = sel("entorno", "produccion"),
            numero = esc(&q.text("numero")),
            cdc = esc(&q.text("cdc")),
            rruc = esc(&q.text("receptor_ruc")),
            cf = esc(&q.text("created_from")),
            ct = esc(&q.text("created_to")),
            t1 = sel("tipo_documento", "1"),
            t4 = sel("tipo_documento", "4"),
            t5 = sel("tipo_documento", "5"),
            t6 = sel("tipo_documento", "6"),
            t7 = sel("tipo_documento", "7"),
        );
        let mut p = s.page("Facturas", "/panel/facturas", &body);
        if !message.is_empty() {
            p.status = 400;
        }
        p
    }

    /// One invoice; `message` (HTML) is what a form posted from it brought (the "Reenviar" of the e-mail block).
    pub(crate) fn invoice_page(
        &self,
        s: &Session,
        id: &str,
        q: &Form,
        message: &str,
    ) -> HttpResponse {
        let caller = caller(s, q, Environment::Sandbox);
        let Ok(inv) = self.svc.invoice(&caller, id) else {
            return not_found();
        };
        let e = caller.env.as_str();
        let sifen_errors = inv.sifen_errors.as_deref().unwrap_or_default();
        let errors = if sifen_errors.is_empty() {
            String::new()
        } else {
            let items: String = sifen_errors
                .iter()
                .map(|x| {
                    format!(
                        "<li><code>{}</code>: {}{}</li>",
                        esc(&x.code),
                        esc(&x.message),
                        x.field
                            .as_ref()
                            .map(|f| format!(" (campo {})", esc(f)))
                            .unwrap_or_default()
                    )
                })
                .collect();
            notice(
                "error",
                &format!("<p><strong>Motivos del rechazo de SIFEN</strong></p><ul>{items}</ul>"),
            )
        };
        let mut links = String::new();
        if inv.status == kuatia_core::lifecycle::Estado::Approved {
            links.push_str(&format!("<a class=\"button\" href=\"/panel/facturas/{}/kude?entorno={e}\" download>Descargar KuDE (PDF)</a> ", esc(id)));
        }
        if inv.signed {
            links.push_str(&format!("<a class=\"button\" href=\"/panel/facturas/{}/xml?entorno={e}\" download>Descargar XML firmado</a>", esc(id)));
        }
        let field = |label: &str, value: Option<&str>| {
            format!("<dt>{label}</dt><dd>{}</dd>", esc(value.unwrap_or("—")))
        };
        let tipo_dd = format!(
            "<dt>Tipo de documento</dt><dd>{}</dd>",
            esc(&tipo(inv.tipo_documento))
        );
        let total_dd = format!(
            "<dt>Total</dt><dd>{}</dd>",
            esc(&amount(inv.total.as_deref(), inv.moneda.as_deref()))
        );
        #[cfg(feature = "email")]
        let email = self.email_block(s, q, &inv);
        #[cfg(not(feature = "email"))]
        let email = "";
        let body = format!(
            "{message}<p>{}</p>{errors}<dl class=\"facts\">{}{}{}{}{}{}<dt>Receptor</dt><dd>{}</dd>{}{}{}</dl><p>{links}</p>{email}<p><a href=\"/panel/facturas?entorno={e}\">Volver a la lista</a></p>",
            badge(inv.status.as_str()),
            field("Número", Some(&inv.numero)),
            field("CDC", Some(&inv.cdc)),
            tipo_dd,
            field("Fecha de emisión", Some(&inv.fecha_emision)),
            total_dd,
            field("Moneda", inv.moneda.as_deref()),
            esc(&format!("{} {}", receptor_name(&inv), receptor_ruc(&inv).map(|r| format!("(RUC {r})")).unwrap_or_default())),
            field("Protocolo de SIFEN", inv.protocolo.as_deref()),
            field("Creada", Some(&inv.created_at)),
            field("Aprobada", inv.approved_at.as_deref()),
        );
        s.page(&format!("Factura {}", inv.numero), "/panel/facturas", &body)
    }
}

/// A document type as people read it: `1 · Factura electrónica`.
pub(crate) fn tipo(code: u8) -> String {
    match kuatia_core::codes::tipo_documento(code) {
        Some(name) => format!("{code} · {name}"),
        None => code.to_string(),
    }
}

/// An amount as the KuDE shows it (`213.000 PYG`, `1.234,50 USD`); the stored text when it is not a number.
pub(crate) fn amount(total: Option<&str>, moneda: Option<&str>) -> String {
    let moneda = moneda.unwrap_or("");
    match total {
        Some(t) => match t.parse::<rust_decimal::Decimal>() {
            Ok(d) => format!(
                "{} {moneda}",
                kuatia_core::fmt::human_amount(d, kuatia_core::fmt::currency_decimals(moneda))
            ),
            Err(_) => format!("{t} {moneda}"),
        },
        None => "—".into(),
    }
}

/// The receiver's name as issued, `—` when the document's parts are not at hand.
fn receptor_name(inv: &Invoice) -> &str {
    inv.document()
        .map_or("—", |d| d.receptor.razon_social.as_str())
}

/// The receiver's RUC with its check digit (`80069563-1`), `None` for a receiver without RUC.
fn receptor_ruc(inv: &Invoice) -> Option<String> {
    let r = &inv.document()?.receptor;
    Some(format!("{}-{}", r.ruc.as_deref()?, r.dv?))
}
