//! The panel's "Enviar correo de prueba" (`POST /panel/correo/prueba`, issue 36) served by `kuatia serve`: the panel
//! checks the form (session, CSRF, origin, the address, the account's quota) and names the message
//! ([`kuatia_panel::Panel::email_test_step`]); the message is sent here, over a real SMTP connection, *outside* the
//! writer (a slow SMTP server holds one blocking thread, never the store); then the panel shows how it ended
//! ([`kuatia_panel::Panel::email_test_page`]). The archive download is served the same way (a host step between two
//! reads of the panel).

use crate::app::App;
use crate::commit::Failed;
use kuatia_panel::{EmailTestOutcome, EmailTestStep};
use kuatia_service::{HttpRequest, HttpResponse};
use std::time::Duration;

/// Longest wait for the whole test message (connection, TLS, `AUTH`, the data): the page answers by then.
const DEADLINE: Duration = Duration::from_secs(30);

/// The answer to `POST /panel/correo/prueba`.
pub(crate) async fn serve(app: &App, request: HttpRequest) -> Result<HttpResponse, Failed> {
    let (panel, default, req) = (app.panel.clone(), app.smtp.clone(), request.clone());
    let step = app
        .committer
        .call(
            move |svc, host| match panel.email_test_step(svc, &req, host) {
                EmailTestStep::Done(r) => Err(r),
                EmailTestStep::Send(test) => {
                    // The account's own settings of that environment, else the server's default.
                    let own = svc.store.smtp_settings(&test.account_id, test.env);
                    let settings = crate::email::settings_for(
                        own,
                        host.seal_key(),
                        &test.account_id,
                        test.env,
                        default.as_ref(),
                        svc.config.allow_private_webhooks,
                    );
                    Ok((test, settings))
                }
            },
        )
        .await?;
    let (test, settings) = match step {
        Ok(s) => s,
        Err(response) => return Ok(response),
    };
    let outcome = match settings {
        Ok(None) => EmailTestOutcome::NotConfigured,
        Err(reason) => EmailTestOutcome::Failed { reason },
        Ok(Some(settings)) => {
            let (to, subject, body) = (test.to.clone(), test.subject.clone(), test.body.clone());
            let send = tokio::task::spawn_blocking(move || {
                crate::email::send_test(&settings, &to, &subject, &body)
            });
            match tokio::time::timeout(DEADLINE, send).await {
                Ok(Ok(outcome)) => outcome,
                Ok(Err(_)) => EmailTestOutcome::Failed {
                    reason: "the sending thread failed".into(),
                },
                Err(_) => EmailTestOutcome::Failed {
                    reason: format!("no answer within {} s", DEADLINE.as_secs()),
                },
            }
        }
    };
    match &outcome {
        EmailTestOutcome::Sent { code } => {
            tracing::info!(account = %test.account_id, code, "panel test e-mail sent")
        }
        other => {
            tracing::warn!(account = %test.account_id, outcome = ?other, "panel test e-mail not sent")
        }
    }
    let panel = app.panel.clone();
    app.committer
        .call(move |svc, host| panel.email_test_page(svc, &request, &test, &outcome, host))
        .await
}
