//! The production emitter profile and its stamps (timbrados): the form, its parsing, and the service's rules.

use super::findings_html;
use crate::form::Form;
use crate::html::{csrf_field, esc, notice};
use crate::{Ctx, Session};
use kuatia_core::error::Finding;
use kuatia_core::profile::{Actividad, Csc, Emisor, Secret, Timbrado};
use kuatia_core::rule;
use kuatia_service::{Host, HttpResponse, Store};

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn profile_page(
        &self,
        s: &Session,
        draft: Option<&Form>,
        message: &str,
    ) -> HttpResponse {
        let base = s.account.production.clone().unwrap_or_else(|| {
            let mut e = Emisor::sandbox();
            e.ambiente = kuatia_core::profile::Ambiente::Produccion;
            e.timbrados.clear();
            e.csc.secreto = Secret::new("");
            e
        });
        let get = |name: &str, stored: String| match draft {
            Some(f) => esc(&f.text(name)),
            None => esc(&stored),
        };
        let opt = |o: &Option<String>| o.clone().unwrap_or_default();
        let activities: String = base
            .actividades
            .iter()
            .map(|a| format!("{} | {}\n", a.codigo, a.descripcion))
            .collect();
        let stamps: String = base
            .timbrados
            .iter()
            .map(|t| {
                let tipos: Vec<String> = t.tipos_documento.iter().map(u8::to_string).collect();
                format!(
                    "{} | {} | {} | {} | {} | {}\n",
                    t.numero,
                    kuatia_core::fmt::date(t.fecha_inicio),
                    t.fecha_fin.map(kuatia_core::fmt::date).unwrap_or_default(),
                    tipos.join(","),
                    t.establecimiento,
                    t.punto_expedicion
                )
            })
            .collect();
        let field = |id: &str, label: &str, value: String, kind: &str, hint: &str| {
            let hint_html = if hint.is_empty() {
                String::new()
            } else {
                format!("<p class=\"hint\" id=\"{id}-ayuda\">{hint}</p>")
            };
            let described = if hint.is_empty() {
                String::new()
            } else {
                format!(" aria-describedby=\"{id}-ayuda\"")
            };
            format!("<label for=\"{id}\">{label}</label>{hint_html}<input type=\"{kind}\" id=\"{id}\" name=\"{id}\" value=\"{value}\"{described}>")
        };
        let stored_note = if !message.is_empty() {
            String::new()
        } else if s.account.production.is_some() {
            notice(
                "ok",
                "Perfil de producción guardado. Puede modificarlo aquí.",
            )
        } else {
            notice("warn", "Todavía no hay perfil de producción: complete el formulario (parte del contenido es un ejemplo).")
        };
        let csc_hint = if s.account.production.is_some() {
            "Déjelo vacío para conservar el CSC guardado (nunca se muestra)."
        } else {
            "El código de seguridad del contribuyente (32 caracteres) que le entregó la SET."
        };
        let body = format!(
            "{message}{stored_note}<form method=\"post\" action=\"/panel/perfil\">{csrf}\
<fieldset><legend>Contribuyente</legend>{ruc}{razon}{fantasia}\
<label for=\"tipo_contribuyente\">Tipo de contribuyente</label><select id=\"tipo_contribuyente\" name=\"tipo_contribuyente\"><option value=\"1\"{pf}>Persona física</option><option value=\"2\"{pj}>Persona jurídica</option></select>{regimen}</fieldset>\
<fieldset><legend>Dirección y contacto</legend>{dir}{casa}{depto}{distrito}{ciudad}{tel}{email}</fieldset>\
<fieldset><legend>Actividades económicas</legend><label for=\"actividades\">Una por línea: código | descripción</label><textarea id=\"actividades\" name=\"actividades\">{acts}</textarea></fieldset>\
<fieldset><legend>Timbrados</legend><label for=\"timbrados\">Uno por línea: número | inicio AAAA-MM-DD | fin (opcional) | tipos de documento | establecimiento | punto de expedición</label><p class=\"hint\" id=\"timbrados-ayuda\">Ejemplo: <code>12558946 | 2025-01-01 | | 1,4,5 | 001 | 001</code>. Tipos: 1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión.</p><textarea id=\"timbrados\" name=\"timbrados\" aria-describedby=\"timbrados-ayuda\">{stamps}</textarea></fieldset>\
<fieldset><legend>CSC (código de seguridad del contribuyente)</legend>{csc_id}<label for=\"csc_secreto\">CSC</label><p class=\"hint\" id=\"csc-ayuda\">{csc_hint}</p><input type=\"password\" id=\"csc_secreto\" name=\"csc_secreto\" autocomplete=\"off\" aria-describedby=\"csc-ayuda\"></fieldset>\
<button type=\"submit\">Guardar perfil</button></form>",
            csrf = csrf_field(&s.csrf),
            ruc = field("ruc", "RUC con dígito verificador", get("ruc", base.ruc.clone()), "text", "Ejemplo: 80069563-1"),
            razon = field("razon_social", "Razón social", get("razon_social", base.razon_social.clone()), "text", ""),
            fantasia = field("nombre_fantasia", "Nombre de fantasía (opcional)", get("nombre_fantasia", opt(&base.nombre_fantasia)), "text", ""),
            pf = if base.tipo_contribuyente == 1 { " selected" } else { "" },
            pj = if base.tipo_contribuyente == 2 { " selected" } else { "" },
            regimen = field("tipo_regimen", "Tipo de régimen (1 a 8, opcional)", get("tipo_regimen", base.tipo_regimen.map(|r| r.to_string()).unwrap_or_default()), "text", ""),
            dir = field("direccion", "Dirección", get("direccion", base.direccion.clone()), "text", ""),
            casa = field("numero_casa", "Número de casa (0 si no tiene)", get("numero_casa", base.numero_casa.to_string()), "text", ""),
            depto = field("departamento", "Código de departamento (1 a 20)", get("departamento", base.departamento.to_string()), "text", ""),
            distrito = field("distrito", "Código de distrito (opcional)", get("distrito", base.distrito.map(|d| d.to_string()).unwrap_or_default()), "text", ""),
            ciudad = field("ciudad", "Código de ciudad", get("ciudad", base.ciudad.to_string()), "text", ""),
            tel = field("telefono", "Teléfono", get("telefono", base.telefono.clone()), "text", ""),
            email = field("email", "Correo electrónico", get("email", base.email.clone()), "email", ""),
            acts = match draft { Some(f) => esc(&f.text("actividades")), None => esc(&activities) },
            stamps = match draft { Some(f) => esc(&f.text("timbrados")), None => esc(&stamps) },
            csc_id = field("csc_id", "Identificador del CSC (4 dígitos)", get("csc_id", base.csc.id.clone()), "text", ""),
        );
        s.page("Perfil del emisor y timbrados", "/panel/perfil", &body)
    }

    pub(crate) fn save_profile(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let (emisor, mut findings) = profile_from_form(f, s.account.production.as_ref());
        if findings.is_empty() {
            // The core's rules for a production profile, as `kuatia accounts set-profile` and the preflight apply them.
            match self.svc.set_production_profile(&s.account.id, emisor, host) {
                Ok(()) => {
                    let account = self
                        .svc
                        .store
                        .account(&s.account.id)
                        .unwrap_or(s.account.clone());
                    let s = Session {
                        account,
                        csrf: s.csrf.clone(),
                    };
                    return self.profile_page(&s, None, &notice("ok", "Perfil guardado."));
                }
                Err(fs) => findings = fs,
            }
        }
        let mut r = self.profile_page(
            s,
            Some(f),
            &findings_html("No se guardó el perfil; corrija lo siguiente:", &findings),
        );
        r.status = 422;
        r
    }
}

/// The emitter profile of the profile form, and the findings of fields that do not even parse (paths as in the
/// profile's JSON). An empty CSC keeps the stored one.
pub(crate) fn profile_from_form(f: &Form, stored: Option<&Emisor>) -> (Emisor, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut num = |name: &str, required: bool| -> Option<u64> {
        let t = f.text(name);
        if t.is_empty() {
            if required {
                findings.push(rule::panel_form_required(name));
            }
            return None;
        }
        match t.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                findings.push(rule::panel_form_whole_number(name));
                None
            }
        }
    };
    let tipo_contribuyente = num("tipo_contribuyente", true)
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(0);
    let tipo_regimen = num("tipo_regimen", false).and_then(|n| u8::try_from(n).ok());
    let numero_casa = num("numero_casa", false)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let departamento = num("departamento", true)
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(0);
    let distrito = num("distrito", false).and_then(|n| u16::try_from(n).ok());
    let ciudad = num("ciudad", true)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let optional = |name: &str| Some(f.text(name)).filter(|t| !t.is_empty());
    let mut actividades = Vec::new();
    for (i, line) in f
        .text("actividades")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        match line.split_once('|') {
            Some((c, d)) => actividades.push(Actividad {
                codigo: c.trim().into(),
                descripcion: d.trim().into(),
            }),
            None => findings.push(rule::panel_profile_actividad(format!("actividades[{i}]"))),
        }
    }
    let mut timbrados = Vec::new();
    for (i, line) in f
        .text("timbrados")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let path = format!("timbrados[{i}]");
        let [numero, inicio, fin, tipos, est, punto] = parts.as_slice() else {
            findings.push(rule::panel_profile_timbrado(path));
            continue;
        };
        let date = |t: &str| kuatia_core::fmt::parse_date(t).ok();
        let Some(fecha_inicio) = date(inicio) else {
            findings.push(rule::panel_form_date(format!("{path}.fecha_inicio")));
            continue;
        };
        let fecha_fin = if fin.is_empty() {
            None
        } else {
            match date(fin) {
                Some(d) => Some(d),
                None => {
                    findings.push(rule::panel_form_date(format!("{path}.fecha_fin")));
                    continue;
                }
            }
        };
        let tipos: Result<Vec<u8>, _> = tipos.split(',').map(|t| t.trim().parse::<u8>()).collect();
        let Ok(tipos_documento) = tipos else {
            findings.push(rule::panel_profile_tipos(format!("{path}.tipos_documento")));
            continue;
        };
        timbrados.push(Timbrado {
            numero: (*numero).into(),
            fecha_inicio,
            fecha_fin,
            tipos_documento,
            establecimiento: (*est).into(),
            punto_expedicion: (*punto).into(),
        });
    }
    let secret = f.text("csc_secreto");
    let secreto = if secret.is_empty() {
        stored.map(|e| e.csc.secreto.clone()).unwrap_or_default()
    } else {
        Secret::new(secret)
    };
    let emisor = Emisor {
        ambiente: kuatia_core::profile::Ambiente::Produccion,
        ruc: f.text("ruc"),
        razon_social: f.text("razon_social"),
        nombre_fantasia: optional("nombre_fantasia"),
        tipo_contribuyente,
        tipo_regimen,
        direccion: f.text("direccion"),
        numero_casa,
        complemento_direccion1: stored.and_then(|e| e.complemento_direccion1.clone()),
        complemento_direccion2: stored.and_then(|e| e.complemento_direccion2.clone()),
        departamento,
        distrito,
        ciudad,
        telefono: f.text("telefono"),
        email: f.text("email"),
        sucursal: stored.and_then(|e| e.sucursal.clone()),
        actividades,
        timbrados,
        csc: Csc {
            id: f.text("csc_id"),
            secreto,
        },
    };
    (emisor, findings)
}
