//! The production certificate: what is installed (holder, RUC, validity, expiry warning) and the P12 upload, checked
//! by the service before the host keeps it.

use crate::form::Form;
use crate::html::{csrf_field, esc, notice};
use crate::{Ctx, Session, EXPIRY_WARNING_DAYS};
use kuatia_core::error::Finding;
use kuatia_service::auth::Environment;
use kuatia_service::{rfc3339, Host, HttpResponse, Store};
use zeroize::Zeroizing;

/// The Spanish explanation of a refused certificate, by the core's code.
pub(crate) fn certificate_refusal(f: &Finding) -> String {
    let c = kuatia_core::code::CERTIFICATE_RUC_MISMATCH;
    let text = match f.code.as_str() {
        x if x == kuatia_core::code::P12_WRONG_PASSWORD => {
            "La contraseña no abre este archivo P12. Verifique la contraseña que le dio el prestador de certificación."
        }
        x if x == kuatia_core::code::P12_INVALID => {
            "El archivo no es un certificado P12 (PKCS#12) legible. Suba el archivo .p12 o .pfx que le entregó el prestador."
        }
        x if x == kuatia_core::code::P12_NO_PRIVATE_KEY => {
            "El P12 no contiene la clave privada: no sirve para firmar."
        }
        x if x == kuatia_core::code::P12_NO_CERTIFICATE => "El P12 no contiene ningún certificado.",
        x if x == kuatia_core::code::CERTIFICATE_EXPIRED => {
            "El certificado está vencido. Renuévelo con su prestador de certificación."
        }
        x if x == kuatia_core::code::CERTIFICATE_NOT_YET_VALID => "El certificado todavía no es válido.",
        x if x == c => "El RUC del certificado no es el RUC del emisor de su perfil de producción.",
        x if x == kuatia_core::code::CERTIFICATE_RUC_MISSING => "El certificado no lleva ningún RUC.",
        x if x == kuatia_core::code::PRODUCTION_NOT_CONFIGURED => {
            "Primero cargue el perfil de producción (sección Perfil y timbrados): el certificado debe llevar su RUC."
        }
        x if x == kuatia_core::code::KEY_UNSUPPORTED => {
            "La clave del certificado no es RSA de 2048 bits o más, como exige SIFEN."
        }
        _ => "El certificado no se puede usar.",
    };
    // The core's message names the code first (`CODE: detail`); show the code once.
    let message = f.message_in(kuatia_core::msg::Lang::EsPy);
    let detail = message
        .strip_prefix(&format!("{}: ", f.code))
        .unwrap_or(&message);
    format!(
        "{text} <span class=\"hint\">({}: {})</span>",
        esc(&f.code),
        esc(detail)
    )
}

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn certificate_page(
        &self,
        s: &Session,
        host: &mut dyn Host,
        message: &str,
    ) -> HttpResponse {
        let now = host.now();
        let info = host
            .signer(&s.account.id, Environment::Production)
            .and_then(|sg| sg.certificate_info().ok());
        let current = match info {
            Some(i) => {
                let days = (i.not_after - now).whole_days();
                let warn = if days < 0 {
                    notice("error", "El certificado está vencido: SIFEN rechaza lo firmado con él. Suba uno nuevo.")
                } else if days <= EXPIRY_WARNING_DAYS {
                    notice("warn", &format!("El certificado vence en {days} días. Renuévelo con su prestador y súbalo aquí antes del vencimiento."))
                } else {
                    String::new()
                };
                let ruc_ok = s
                    .account
                    .production
                    .as_ref()
                    .is_some_and(|p| i.ruc.as_deref() == Some(p.ruc.as_str()));
                format!(
                    "{warn}<dl class=\"facts\"><dt>Titular</dt><dd>{}</dd><dt>RUC</dt><dd>{}{}</dd><dt>Emisor del certificado</dt><dd>{}</dd><dt>Válido desde</dt><dd>{}</dd><dt>Válido hasta</dt><dd>{}</dd><dt>Días hasta el vencimiento</dt><dd data-days=\"{days}\">{days}</dd></dl>",
                    esc(&i.subject),
                    esc(i.ruc.as_deref().unwrap_or("—")),
                    if ruc_ok { " <span class=\"badge ok\">coincide con el emisor</span>" } else { " <span class=\"badge bad\">no es el RUC del perfil de producción</span>" },
                    esc(&i.issuer),
                    esc(&rfc3339(i.not_before.unix_timestamp())),
                    esc(&rfc3339(i.not_after.unix_timestamp())),
                )
            }
            None => "<p>Todavía no hay un certificado de producción para esta cuenta.</p>".into(),
        };
        let body = format!(
            "{message}<h2>Certificado actual</h2>{current}<h2>Subir un certificado P12</h2><p>El archivo <code>.p12</code> o <code>.pfx</code> que le entregó el prestador de certificación, con el RUC de su perfil de producción. La contraseña se guarda cifrada en el servidor para poder firmar; nunca se vuelve a mostrar.</p>\
<form method=\"post\" action=\"/panel/certificado\" enctype=\"multipart/form-data\">{}<label for=\"p12\">Archivo P12</label><input type=\"file\" id=\"p12\" name=\"p12\" accept=\".p12,.pfx,application/x-pkcs12\" required>\
<label for=\"clave-p12\">Contraseña del P12</label><input type=\"password\" id=\"clave-p12\" name=\"contrasena\" autocomplete=\"off\" required><button type=\"submit\">Subir certificado</button></form>",
            csrf_field(&s.csrf)
        );
        s.page("Certificado", "/panel/certificado", &body)
    }

    pub(crate) fn upload_certificate(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let refuse = |this: &Self, host: &mut dyn Host, finding: Finding| {
            let mut r = this.certificate_page(
                s,
                host,
                &notice(
                    "error",
                    &format!(
                        "<p><strong>No se guardó el certificado.</strong> {}</p>",
                        certificate_refusal(&finding)
                    ),
                ),
            );
            r.status = 422;
            r
        };
        let p12 = f.bytes("p12").unwrap_or_default();
        let password = Zeroizing::new(f.get("contrasena").unwrap_or_default().to_string());
        if p12.is_empty() {
            return refuse(
                self,
                host,
                kuatia_core::rule::panel_certificate_no_file("p12"),
            );
        }
        let signer = match kuatia_core::sign::SoftwareSigner::from_pkcs12(p12, &password) {
            Ok(sg) => sg,
            Err(e) => return refuse(self, host, e.to_finding("p12")),
        };
        let info = match self
            .svc
            .check_production_certificate(&s.account.id, &signer, host)
        {
            Ok(i) => i,
            Err(fs) => {
                let first = fs
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| kuatia_core::rule::panel_certificate_refused("p12"));
                return refuse(self, host, first);
            }
        };
        drop(signer);
        if let Err(why) = host.install_certificate(&s.account.id, p12, &password) {
            return refuse(
                self,
                host,
                kuatia_core::rule::panel_certificate_install("p12", &why),
            );
        }
        self.certificate_page(
            s,
            host,
            &notice(
                "ok",
                &format!(
                    "Certificado guardado: {} (RUC {}). Las facturas de producción se firmarán con él.",
                    esc(&info.subject),
                    esc(info.ruc.as_deref().unwrap_or("—"))
                ),
            ),
        )
    }
}
