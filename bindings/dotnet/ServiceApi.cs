// The typed calls of the /v1 routes: a request for Service.Handle, the envelope decoded; an error answer is an
// ApiException with the registry code (the same surface as the Python, Java and Go Service classes).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Kuatia
{
    public sealed partial class Service
    {
        /// <summary>
        /// The headers of a typed call: <paramref name="headers"/> plus <c>Accept-Language</c> in the language chosen with
        /// <see cref="Library.SetLanguage"/> unless they have one, so an <see cref="ApiException"/> reads like every other
        /// error of the binding. <see cref="Handle(string, string, IEnumerable{KeyValuePair{string, string}}, byte[])"/>
        /// sends exactly what it is given.
        /// </summary>
        private static List<KeyValuePair<string, string>> Typed(IEnumerable<KeyValuePair<string, string>> headers)
        {
            var pairs = new List<KeyValuePair<string, string>>();
            bool has = false;
            if (headers != null)
            {
                foreach (KeyValuePair<string, string> h in headers)
                {
                    has = has || string.Equals(h.Key, "Accept-Language", StringComparison.OrdinalIgnoreCase);
                    pairs.Add(h);
                }
            }
            if (!has)
            {
                pairs.Add(new KeyValuePair<string, string>("Accept-Language", Library.Language));
            }
            return pairs;
        }

        private IDictionary<string, object> Call(string method, string path,
            IEnumerable<KeyValuePair<string, string>> headers, byte[] body)
        {
            Response r = Handle(method, path, Typed(headers), body);
            IDictionary<string, object> envelope;
            try
            {
                envelope = r.Json();
            }
            catch (FormatException)
            {
                throw new ApiException(r.Status, "", r.Text(), null);
            }
            object ok;
            if (!(envelope.TryGetValue("ok", out ok) && ok is bool && (bool)ok))
            {
                throw Error(r.Status, envelope);
            }
            return envelope;
        }

        private static ApiException Error(int status, IDictionary<string, object> envelope)
        {
            object e;
            var err = envelope.TryGetValue("error", out e) ? e as IDictionary<string, object> : null;
            if (err == null)
            {
                return new ApiException(status, "", "", null);
            }
            object code, message, details;
            err.TryGetValue("code", out code);
            err.TryGetValue("message", out message);
            err.TryGetValue("details", out details);
            return new ApiException(status, code as string ?? "", message as string ?? "", details as IList<object>);
        }

        private static IDictionary<string, object> Data(IDictionary<string, object> envelope)
        {
            return (IDictionary<string, object>)envelope["data"];
        }

        private static Page PageOf(IDictionary<string, object> envelope)
        {
            object meta;
            envelope.TryGetValue("meta", out meta);
            return new Page((IList<object>)envelope["data"],
                meta as IDictionary<string, object> ?? new Dictionary<string, object>());
        }

        private static string Seg(string v, string name)
        {
            if (v == null)
            {
                throw new ArgumentNullException(name);
            }
            return Uri.EscapeDataString(v);
        }

        /// <summary><c>?k=v&amp;…</c> of the parameters that are not null, percent-encoded; the values are the core's to check.</summary>
        internal static string QueryString(IEnumerable<KeyValuePair<string, object>> ps)
        {
            var q = new StringBuilder();
            foreach (var kv in ps)
            {
                if (kv.Value == null)
                {
                    continue;
                }
                q.Append(q.Length == 0 ? '?' : '&').Append(Uri.EscapeDataString(kv.Key)).Append('=')
                    .Append(Uri.EscapeDataString(Convert.ToString(kv.Value, CultureInfo.InvariantCulture)));
            }
            return q.ToString();
        }

        private static List<KeyValuePair<string, string>> With(IEnumerable<KeyValuePair<string, string>> headers,
            string name, string value)
        {
            var list = new List<KeyValuePair<string, string>>();
            if (headers != null)
            {
                list.AddRange(headers);
            }
            if (value != null)
            {
                list.Add(new KeyValuePair<string, string>(name, value));
            }
            return list;
        }

        /// <summary><c>POST /v1/facturas</c>: the created invoice. Throws <see cref="ApiException"/> (<c>VALIDATION_ERROR</c> with every finding in <c>Details</c>, ...).</summary>
        public IDictionary<string, object> CreateInvoice(IEnumerable<KeyValuePair<string, string>> headers,
            string requestJson, string idempotencyKey = null)
        {
            if (requestJson == null)
            {
                throw new ArgumentNullException("requestJson");
            }
            var hs = With(headers, "Idempotency-Key", idempotencyKey);
            return Data(Call("POST", "/v1/facturas", hs, Encoding.UTF8.GetBytes(requestJson)));
        }

        /// <summary><c>GET /v1/facturas/{id}</c>: the full invoice resource.</summary>
        public IDictionary<string, object> GetInvoice(IEnumerable<KeyValuePair<string, string>> headers, string invoiceId)
        {
            return Data(Call("GET", "/v1/facturas/" + Seg(invoiceId, "invoiceId"), headers, null));
        }

        /// <summary><c>GET /v1/facturas/{id}/xml</c>: the signed rDE as sent to SIFEN.</summary>
        public byte[] InvoiceXml(IEnumerable<KeyValuePair<string, string>> headers, string invoiceId)
        {
            return Bytes("/v1/facturas/" + Seg(invoiceId, "invoiceId") + "/xml", headers);
        }

        /// <summary><c>GET /v1/facturas/{id}/emails</c>: the invoice's messages to the buyer, oldest first (<c>id</c>, <c>kind</c>, <c>to</c>, <c>subject</c>, <c>body</c>, <c>status</c> <c>captured</c> in-process: nothing is sent, <c>attempts</c>, <c>log</c>).</summary>
        public IList<object> InvoiceEmails(IEnumerable<KeyValuePair<string, string>> headers, string invoiceId)
        {
            return (IList<object>)Call("GET", "/v1/facturas/" + Seg(invoiceId, "invoiceId") + "/emails", headers, null)["data"];
        }

        /// <summary><c>POST /v1/facturas/{id}/email</c>: queues an approved invoice's message again, to <paramref name="to"/> or (null) to the document's <c>receptor.email</c>; the new message. Throws <see cref="ApiException"/> <c>KUDE_NOT_AVAILABLE</c> (409) unless approved, <c>VALIDATION_ERROR</c> (422) for an address SIFEN would refuse.</summary>
        public IDictionary<string, object> ResendEmail(IEnumerable<KeyValuePair<string, string>> headers, string invoiceId,
            string to = null)
        {
            byte[] body = to == null ? null
                : Encoding.UTF8.GetBytes(Json.Serialize(new Dictionary<string, object> { { "to", to } }));
            return Data(Call("POST", "/v1/facturas/" + Seg(invoiceId, "invoiceId") + "/email", headers, body));
        }

        /// <summary><c>GET /v1/archivo?mes=YYYY-MM</c>: the zip of the month's signed XMLs and KuDEs, <c>index.csv</c> and <c>manifest.json</c>. Throws <see cref="ApiException"/> <c>INVALID_QUERY</c> (400) for a bad month or one of more than <c>archive_limit</c> documents (config, default 500).</summary>
        public byte[] MonthArchive(IEnumerable<KeyValuePair<string, string>> headers, string mes)
        {
            if (mes == null)
            {
                throw new ArgumentNullException("mes");
            }
            return Bytes("/v1/archivo" + QueryString(new[] { new KeyValuePair<string, object>("mes", mes) }), headers);
        }

        /// <summary>The body of a <c>GET</c> answered 200 as it is (XML, zip); any other answer is its <see cref="ApiException"/>.</summary>
        private byte[] Bytes(string path, IEnumerable<KeyValuePair<string, string>> headers)
        {
            Response r = Handle("GET", path, Typed(headers), (byte[])null);
            if (r.Status != 200)
            {
                IDictionary<string, object> envelope;
                try
                {
                    envelope = r.Json();
                }
                catch (FormatException)
                {
                    throw new ApiException(r.Status, "", r.Text(), null);
                }
                throw Error(r.Status, envelope);
            }
            return r.Body;
        }

        /// <summary><c>GET /v1/facturas</c> with filters and cursor paging (pass <see cref="Page.NextCursor"/> as <c>StartingAfter</c>). A bad value is <see cref="ApiException"/> <c>INVALID_QUERY</c>.</summary>
        public Page ListInvoices(IEnumerable<KeyValuePair<string, string>> headers, InvoiceFilter filter = null)
        {
            string q = filter == null ? "" : filter.Query();
            return PageOf(Call("GET", "/v1/facturas" + q, headers, null));
        }

        /// <summary><c>POST /v1/webhooks</c>: the webhook with its signing <c>secret</c> (shown only here).</summary>
        public IDictionary<string, object> CreateWebhook(IEnumerable<KeyValuePair<string, string>> headers, string url,
            IEnumerable<string> events, string description = null)
        {
            var body = new Dictionary<string, object> { { "url", url }, { "events", events } };
            if (description != null)
            {
                body["description"] = description;
            }
            return Data(Call("POST", "/v1/webhooks", headers, Encoding.UTF8.GetBytes(Json.Serialize(body))));
        }

        /// <summary><c>GET /v1/webhooks/{id}</c> (no secret).</summary>
        public IDictionary<string, object> GetWebhook(IEnumerable<KeyValuePair<string, string>> headers, string webhookId)
        {
            return Data(Call("GET", "/v1/webhooks/" + Seg(webhookId, "webhookId"), headers, null));
        }

        /// <summary><c>DELETE /v1/webhooks/{id}</c>: <c>{"id", "deleted": true}</c>; its pending deliveries are cancelled.</summary>
        public IDictionary<string, object> DeleteWebhook(IEnumerable<KeyValuePair<string, string>> headers, string webhookId)
        {
            return Data(Call("DELETE", "/v1/webhooks/" + Seg(webhookId, "webhookId"), headers, null));
        }

        /// <summary><c>POST /v1/webhooks/{id}/rotate</c>: the webhook with its new <c>secret</c> and <c>previous_secret_expires_at</c>.</summary>
        public IDictionary<string, object> RotateWebhook(IEnumerable<KeyValuePair<string, string>> headers, string webhookId)
        {
            return Data(Call("POST", "/v1/webhooks/" + Seg(webhookId, "webhookId") + "/rotate", headers, null));
        }

        /// <summary><c>GET /v1/webhooks/{id}/deliveries</c>: the delivery log, newest first.</summary>
        public Page Deliveries(IEnumerable<KeyValuePair<string, string>> headers, string webhookId, int? page = null,
            int? limit = null)
        {
            string q = QueryString(new[]
            {
                new KeyValuePair<string, object>("page", page), new KeyValuePair<string, object>("limit", limit),
            });
            return PageOf(Call("GET", "/v1/webhooks/" + Seg(webhookId, "webhookId") + "/deliveries" + q, headers, null));
        }

        /// <summary><c>POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver</c>: the new delivery of the same event.</summary>
        public IDictionary<string, object> Redeliver(IEnumerable<KeyValuePair<string, string>> headers, string webhookId,
            string deliveryId)
        {
            string path = "/v1/webhooks/" + Seg(webhookId, "webhookId") + "/deliveries/" + Seg(deliveryId, "deliveryId")
                + "/redeliver";
            return Data(Call("POST", path, headers, null));
        }
    }
}
