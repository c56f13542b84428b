//! The panel's markup: one layout, an escape function and the two embedded assets (no CDN, no framework).

use kuatia_service::HttpResponse;

/// The stylesheet, served at `/panel/estilo.css`.
pub(crate) const CSS: &str = r#":root{--fg:#1a1a1a;--muted:#4a4a4a;--bg:#fff;--line:#c8c8c8;--brand:#0b4f8a;--ok:#0a6b2d;--okbg:#e3f4e8;--bad:#a1131b;--badbg:#fbe6e7;--warn:#7a4b00;--warnbg:#fff3d6}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--brand)}
a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f2a900;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
header{background:var(--brand);color:#fff;padding:.5rem 1rem}
header a{color:#fff}
header .brand{font-weight:700;font-size:1.2rem;margin-right:1rem;text-decoration:none}
nav ul{list-style:none;margin:.25rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .9rem}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
header form{display:inline}
header button{background:transparent;color:#fff;border:1px solid #fff;padding:.2rem .6rem;cursor:pointer;font:inherit}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password],input[type=url],input[type=email],input[type=number],input[type=date],select,textarea{width:100%;max-width:40rem;padding:.45rem;border:1px solid #767676;border-radius:4px;font:inherit}
textarea{min-height:6rem;font-family:ui-monospace,monospace;font-size:.9rem}
pre.email-body{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f7f7;border:1px solid var(--line);border-radius:4px;padding:.75rem;font-size:.9rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:1rem 0;padding:.5rem 1rem 1rem}
legend{font-weight:700}
.check label{display:inline;font-weight:400;margin-left:.3rem}
button,.button{display:inline-block;margin-top:1rem;background:var(--brand);color:#fff;border:0;border-radius:4px;padding:.55rem 1.1rem;font:inherit;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--brand);border:1px solid var(--brand);margin-top:0;padding:.3rem .7rem}
button.danger{background:#fff;color:var(--bad);border:1px solid var(--bad);margin-top:0;padding:.3rem .7rem}
.hint{color:var(--muted);font-size:.9rem;margin:.2rem 0}
.notice{border-left:6px solid var(--brand);background:#eef4fa;padding:.75rem 1rem;margin:1rem 0}
.notice.ok{border-color:var(--ok);background:var(--okbg)}
.notice.error{border-color:var(--bad);background:var(--badbg)}
.notice.warn{border-color:var(--warn);background:var(--warnbg)}
.table{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#f3f3f3}
caption{text-align:left}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.85rem;font-weight:700;border:1px solid currentColor}
.badge.approved,.badge.ok{color:var(--ok);background:var(--okbg)}
.badge.rejected,.badge.bad,.badge.cancelled{color:var(--bad);background:var(--badbg)}
.badge.pending,.badge.sent{color:var(--warn);background:var(--warnbg)}
ol.checklist{list-style:none;padding:0}
ol.checklist li{border:1px solid var(--line);border-left-width:8px;border-radius:4px;padding:.6rem .8rem;margin:.5rem 0}
ol.checklist li.ok{border-left-color:var(--ok)}
ol.checklist li.bad{border-left-color:var(--bad)}
.secret{font-family:ui-monospace,monospace;font-size:1rem;width:100%;max-width:40rem;padding:.45rem;background:#f7f7f7;border:1px solid #767676}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:700}dl.facts dd{margin:0;overflow-wrap:anywhere}
.inline{display:inline}
@media (max-width:40rem){.wide{display:none}main{padding:.75rem}h1{font-size:1.35rem}dl.facts{grid-template-columns:1fr}th,td{padding:.35rem .3rem;font-size:.9rem}}
"#;

/// The one script, served at `/panel/panel.js`: the copy button of a new key or webhook secret.
pub(crate) const JS: &str = r#"document.addEventListener("click", function (e) {
  var b = e.target.closest("button[data-copy]");
  if (!b) return;
  var field = document.getElementById(b.getAttribute("data-copy"));
  if (!field) return;
  field.select();
  var done = function () { b.textContent = "Copiada"; };
  if (navigator.clipboard) { navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); }); }
  else { document.execCommand("copy"); done(); }
});
"#;

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The sections of the signed-in panel: path, label.
pub(crate) const NAV: &[(&str, &str)] = &[
    ("/panel", "Preparación"),
    ("/panel/facturas", "Facturas"),
    ("/panel/claves", "Claves API"),
    ("/panel/certificado", "Certificado"),
    ("/panel/perfil", "Perfil y timbrados"),
    ("/panel/webhooks", "Webhooks"),
    #[cfg(feature = "email")]
    ("/panel/correo", "Correo"),
    ("/panel/contrasena", "Contraseña"),
];

/// Security headers of every panel answer.
pub(crate) fn headers(content_type: &str) -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), content_type.into()),
        (
            "Content-Security-Policy".into(),
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'".into(),
        ),
        ("X-Content-Type-Options".into(), "nosniff".into()),
        ("X-Frame-Options".into(), "DENY".into()),
        // The one-time link's token is in a URL: it must not leave in a Referer to another site. (Not `no-referrer`:
        // browsers then send `Origin: null` with the panel's own forms, which the cross-site check refuses.)
        ("Referrer-Policy".into(), "same-origin".into()),
        ("Cache-Control".into(), "no-store".into()),
    ]
}

/// A whole page. `signed_in` carries the account's name and the CSRF token (for the sign-out form); `current` is
/// the section path to mark in the navigation.
pub(crate) fn page(
    status: u16,
    title: &str,
    signed_in: Option<(&str, &str)>,
    current: &str,
    body: &str,
) -> HttpResponse {
    let mut nav = String::new();
    if let Some((name, csrf)) = signed_in {
        nav.push_str("<nav aria-label=\"Secciones del panel\"><ul>");
        for &(href, label) in NAV {
            let cur = if href == current {
                " aria-current=\"page\""
            } else {
                ""
            };
            nav.push_str(&format!("<li><a href=\"{href}\"{cur}>{label}</a></li>"));
        }
        nav.push_str(&format!(
            "<li><form method=\"post\" action=\"/panel/salir\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\">Salir ({})</button></form></li></ul></nav>",
            esc(csrf),
            esc(name)
        ));
    }
    let html = format!(
        "<!doctype html>\n<html lang=\"es\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{} · kuatia</title><link rel=\"stylesheet\" href=\"/panel/estilo.css\"><script src=\"/panel/panel.js\" defer></script></head><body><a class=\"skip\" href=\"#contenido\">Ir al contenido</a><header><a class=\"brand\" href=\"/panel\">kuatia · panel</a>{nav}</header><main id=\"contenido\" tabindex=\"-1\"><h1>{}</h1>{body}</main></body></html>",
        esc(title),
        esc(title)
    );
    HttpResponse {
        status,
        headers: headers("text/html; charset=utf-8"),
        body: html.into_bytes(),
    }
}

/// A notice box (`kind`: `ok`, `error`, `warn` or empty), announced to screen readers.
pub(crate) fn notice(kind: &str, text_html: &str) -> String {
    let role = if kind == "error" { "alert" } else { "status" };
    format!("<div class=\"notice {kind}\" role=\"{role}\">{text_html}</div>")
}

/// The hidden CSRF field of a state-changing form.
pub(crate) fn csrf_field(csrf: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        esc(csrf)
    )
}

/// A 303 redirect.
pub(crate) fn redirect(to: &str) -> HttpResponse {
    let mut h = headers("text/plain; charset=utf-8");
    h.push(("Location".into(), to.into()));
    HttpResponse {
        status: 303,
        headers: h,
        body: Vec::new(),
    }
}

/// A static asset, cacheable for an hour.
pub(crate) fn asset(content_type: &str, body: &str) -> HttpResponse {
    let mut h = headers(content_type);
    for (k, v) in &mut h {
        if k == "Cache-Control" {
            *v = "public, max-age=3600".into();
        }
    }
    HttpResponse {
        status: 200,
        headers: h,
        body: body.as_bytes().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup() {
        assert_eq!(
            super::esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
