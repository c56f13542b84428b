using System;
using System.Collections.Generic;
using System.Text;

namespace Kuatia
{
    /// <summary>An answer of the service: HTTP status, headers in order, and the raw body (JSON text, or a PDF).</summary>
    public sealed class Response
    {
        internal Response(int status, IList<KeyValuePair<string, string>> headers, byte[] body)
        {
            Status = status;
            Headers = headers;
            Body = body;
        }

        /// <summary>HTTP status.</summary>
        public int Status { get; private set; }

        /// <summary>Headers as (name, value) pairs, repeats kept.</summary>
        public IList<KeyValuePair<string, string>> Headers { get; private set; }

        /// <summary>The raw body.</summary>
        public byte[] Body { get; private set; }

        /// <summary>The first header with this name (case-insensitive), or null.</summary>
        public string Header(string name)
        {
            foreach (var kv in Headers)
            {
                if (string.Equals(kv.Key, name, StringComparison.OrdinalIgnoreCase))
                {
                    return kv.Value;
                }
            }
            return null;
        }

        /// <summary>The body as UTF-8 text.</summary>
        public string Text()
        {
            return Interop.Utf8.GetString(Body);
        }

        /// <summary>The body parsed as JSON (the <c>{ok, data, meta, error}</c> envelope).</summary>
        public IDictionary<string, object> Json()
        {
            return Kuatia.Json.ParseObject(Text());
        }
    }

    /// <summary>One page of a list: the resources and the list's <c>meta</c>.</summary>
    public sealed class Page
    {
        internal Page(IList<object> data, IDictionary<string, object> meta)
        {
            Data = data;
            Meta = meta;
        }

        /// <summary>The resources of this page.</summary>
        public IList<object> Data { get; private set; }

        /// <summary><c>has_more</c>, <c>next_cursor</c>, <c>total</c>, <c>page</c>, <c>per_page</c>.</summary>
        public IDictionary<string, object> Meta { get; private set; }

        /// <summary>Whether rows follow this page.</summary>
        public bool HasMore
        {
            get
            {
                object v;
                return Meta.TryGetValue("has_more", out v) && v is bool && (bool)v;
            }
        }

        /// <summary>The <c>starting_after</c> of the next page (null on the last one).</summary>
        public string NextCursor
        {
            get
            {
                object v;
                return Meta.TryGetValue("next_cursor", out v) ? v as string : null;
            }
        }
    }

    /// <summary>An account and its first API key (shown only once).</summary>
    public sealed class Account
    {
        internal Account(string id, string key)
        {
            Id = id;
            Key = key;
        }

        /// <summary><c>acct_…</c>.</summary>
        public string Id { get; private set; }

        /// <summary><c>dk_test_…</c>.</summary>
        public string Key { get; private set; }
    }

    /// <summary>The filters and cursor of <c>GET /v1/facturas</c>; null properties are left out. The values are the core's to check.</summary>
    public sealed class InvoiceFilter
    {
        /// <summary><c>pending</c>, <c>approved</c>, <c>rejected</c>, <c>cancelled</c>, ...</summary>
        public string Status { get; set; }

        /// <summary>RFC 3339 lower bound of <c>created_at</c>.</summary>
        public string CreatedFrom { get; set; }

        /// <summary>RFC 3339 upper bound of <c>created_at</c>.</summary>
        public string CreatedTo { get; set; }

        /// <summary>Exact CDC.</summary>
        public string Cdc { get; set; }

        /// <summary>Exact number, <c>001-001-0000001</c>.</summary>
        public string Numero { get; set; }

        /// <summary>Receiver RUC.</summary>
        public string ReceptorRuc { get; set; }

        /// <summary>Document type (1 factura, ...).</summary>
        public int? TipoDocumento { get; set; }

        /// <summary><c>asc</c> or <c>desc</c>.</summary>
        public string Order { get; set; }

        /// <summary>Page size.</summary>
        public int? Limit { get; set; }

        /// <summary>The previous page's <see cref="Page.NextCursor"/>.</summary>
        public string StartingAfter { get; set; }

        internal string Query()
        {
            return Service.QueryString(new[]
            {
                Pair("status", Status), Pair("created_from", CreatedFrom), Pair("created_to", CreatedTo),
                Pair("cdc", Cdc), Pair("numero", Numero), Pair("receptor_ruc", ReceptorRuc),
                Pair("tipo_documento", TipoDocumento), Pair("order", Order), Pair("limit", Limit),
                Pair("starting_after", StartingAfter),
            });
        }

        private static KeyValuePair<string, object> Pair(string k, object v)
        {
            return new KeyValuePair<string, object>(k, v);
        }
    }

    /// <summary>
    /// What came of a SIFEN job the host posted (<c>kuatia_sifen_outcome</c>): SIFEN answered (HTTP status and raw
    /// body), no answer in time, or the call failed before any answer.
    /// </summary>
    public sealed class SifenJobOutcome
    {
        private SifenJobOutcome(SifenOutcome kind, ushort status, byte[] body, string message)
        {
            Kind = kind;
            HttpStatus = status;
            Body = body;
            Message = message;
        }

        /// <summary>Which of the three.</summary>
        public SifenOutcome Kind { get; private set; }

        /// <summary>HTTP status of an answer.</summary>
        public ushort HttpStatus { get; private set; }

        /// <summary>The raw body of an answer.</summary>
        public byte[] Body { get; private set; }

        /// <summary>The transport's message of a failure.</summary>
        public string Message { get; private set; }

        /// <summary>SIFEN answered with HTTP <paramref name="status"/> and <paramref name="body"/> (the raw bytes).</summary>
        public static SifenJobOutcome Answer(ushort status, byte[] body)
        {
            if (body == null)
            {
                throw new ArgumentNullException("body");
            }
            return new SifenJobOutcome(SifenOutcome.Answer, status, body, null);
        }

        /// <summary>No answer within the host's timeout.</summary>
        public static SifenJobOutcome Timeout()
        {
            return new SifenJobOutcome(SifenOutcome.Timeout, 0, null, null);
        }

        /// <summary>The call failed before any answer; <paramref name="message"/> is the transport's.</summary>
        public static SifenJobOutcome Failed(string message)
        {
            if (message == null)
            {
                throw new ArgumentNullException("message");
            }
            return new SifenJobOutcome(SifenOutcome.Failed, 0, null, message);
        }
    }

    /// <summary>
    /// The in-process <c>/v1</c> service (<c>kuatia_service</c>): accounts, API keys, invoices, KuDE and webhooks kept
    /// in memory, answering HTTP-shaped requests without a server. <c>Dispose</c> it. Thread-safe (the library
    /// serializes the calls). The clock (Unix seconds) and 32 CSPRNG bytes are passed on each call, as the C API asks.
    /// </summary>
    public sealed unsafe partial class Service : IDisposable
    {
        private readonly ServiceHandle handle;
        private readonly Signer sandboxSigner;
        private readonly Signer productionSigner;
        private readonly Func<long> clock;

        /// <summary>
        /// A service. <paramref name="configJson"/> (optional): <c>base_url</c>, <c>sandbox_send_after</c>,
        /// <c>sandbox_answer_after</c>, <c>max_per_page</c>, <c>sifen_mode</c>, ... <paramref name="sandboxSigner"/>
        /// signs invoices of <c>dk_test_</c> keys (null: simulated unsigned); <paramref name="productionSigner"/>
        /// those of <c>dk_live_</c> keys (null: refused). The signers stay the caller's and must stay undisposed
        /// while the service uses them. <paramref name="clock"/> gives Unix seconds (null: the system clock).
        /// </summary>
        public Service(string configJson = null, Signer sandboxSigner = null, Signer productionSigner = null,
            Func<long> clock = null)
        {
            this.sandboxSigner = sandboxSigner;
            this.productionSigner = productionSigner;
            this.clock = clock ?? (() => DateTimeOffset.UtcNow.ToUnixTimeSeconds());
            Input c = Input.OptText(configJson, "configJson");
            var h = new ServiceHandle();
            try
            {
                Interop.Handle((out IntPtr s, ref IntPtr e) =>
                {
                    fixed (byte* pc = c.Data)
                    {
                        return Native.kuatia_service_new(pc, c.Len, out s, ref e);
                    }
                }, h.Adopt);
            }
            catch
            {
                h.Dispose();
                throw;
            }
            handle = h;
        }

        /// <summary>True once disposed.</summary>
        public bool IsDisposed
        {
            get { return handle.DisposeRequested; }
        }

        /// <summary>Frees the service and everything it stores (after calls running in other threads). Idempotent.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        private T Use<T>(Func<IntPtr, T> body)
        {
            return Interop.With(handle, "service", body);
        }

        /// <summary>Creates an account with the built-in sandbox profile and a <c>dk_test_</c> key (shown only here).</summary>
        public Account CreateAccount(string name)
        {
            Input n = Input.Text(name, "name"), seed = Input.Seed();
            long now = clock();
            var o = (IDictionary<string, object>)Use(h => Interop.JsonOf((ref KuatiaBytes b, ref IntPtr e) =>
            {
                fixed (byte* pn = n.Data)
                fixed (byte* ps = seed.Data)
                {
                    return Native.kuatia_service_create_account(h, pn, n.Len, now, ps, seed.Len, ref b, ref e);
                }
            }, seed));
            return new Account((string)o["account_id"], (string)o["key"]);
        }

        /// <summary>Adds a <c>dk_live_</c> (<paramref name="live"/>) or <c>dk_test_</c> key to an account and returns it (shown only here).</summary>
        public string CreateKey(string accountId, bool live = false)
        {
            Input a = Input.Text(accountId, "accountId"), seed = Input.Seed();
            long now = clock();
            return Use(h => Interop.Text((ref KuatiaBytes b, ref IntPtr e) =>
            {
                fixed (byte* pa = a.Data)
                fixed (byte* ps = seed.Data)
                {
                    return Native.kuatia_service_create_key(h, pa, a.Len, live, now, ps, seed.Len, ref b, ref e);
                }
            }, seed));
        }

        /// <summary>As <see cref="Handle(string, string, IEnumerable{KeyValuePair{string, string}}, byte[])"/> with a text body (UTF-8).</summary>
        public Response Handle(string method, string path, IEnumerable<KeyValuePair<string, string>> headers, string body)
        {
            return Handle(method, path, headers, body == null ? null : Encoding.UTF8.GetBytes(body));
        }

        /// <summary>
        /// Answers one request of the <c>/v1</c> API. HTTP errors (401, 404, 422, ...) are a <see cref="Response"/>,
        /// not an exception; exceptions are for bad arguments only. <paramref name="body"/> null: empty.
        /// </summary>
        public Response Handle(string method, string path, IEnumerable<KeyValuePair<string, string>> headers = null,
            byte[] body = null)
        {
            if (method == null)
            {
                throw new ArgumentNullException("method");
            }
            if (path == null)
            {
                throw new ArgumentNullException("path");
            }
            var hs = new List<object>();
            if (headers != null)
            {
                foreach (var kv in headers)
                {
                    hs.Add(new object[] { kv.Key, kv.Value });
                }
            }
            var req = new Dictionary<string, object> { { "method", method }, { "path", path }, { "headers", hs } };
            Input r = Input.Text(Json.Serialize(req), "request"), seed = Input.Seed();
            Input b = body == null ? Input.None : Input.Bytes(body, "body");
            long now = clock();
            byte[][] outs = Use(h => Interop.WithOpt(sandboxSigner == null ? null : sandboxSigner.Handle, "sandbox signer",
                sp => Interop.WithOpt(productionSigner == null ? null : productionSigner.Handle, "production signer",
                    pp => Interop.Bytes2((ref KuatiaBytes head, ref KuatiaBytes outBody, ref IntPtr e) =>
                    {
                        fixed (byte* pr = r.Data)
                        fixed (byte* pb = b.Data)
                        fixed (byte* ps = seed.Data)
                        {
                            return Native.kuatia_service_handle(h, pr, r.Len, pb, b.Len, now, ps, seed.Len, sp, pp,
                                ref head, ref outBody, ref e);
                        }
                    }, seed))));
            var meta = (IDictionary<string, object>)Interop.ParseResult(Interop.Utf8.GetString(outs[0]));
            var list = new List<KeyValuePair<string, string>>();
            foreach (object kv in (IList<object>)meta["headers"])
            {
                var pair = (IList<object>)kv;
                list.Add(new KeyValuePair<string, string>((string)pair[0], (string)pair[1]));
            }
            return new Response((int)(long)meta["status"], list.AsReadOnly(), outs[1]);
        }

        /// <summary>Advances the sandbox's simulated SIFEN to the clock's time (each request does it too), queueing webhooks.</summary>
        public void Tick()
        {
            Input seed = Input.Seed();
            long now = clock();
            Use(h =>
            {
                Interop.Call((ref IntPtr e) =>
                {
                    fixed (byte* ps = seed.Data)
                    {
                        return Native.kuatia_service_tick(h, now, ps, seed.Len, ref e);
                    }
                }, seed);
                return 0;
            });
        }

        /// <summary>Webhook deliveries due now: POST each <c>body</c> with its <c>headers</c> to its <c>url</c>, then <see cref="ReportDelivery"/> its <c>id</c>.</summary>
        public IList<object> DueDeliveries()
        {
            long now = clock();
            return (IList<object>)Use(h => Interop.JsonOf((ref KuatiaBytes b, ref IntPtr e) =>
                Native.kuatia_service_due_deliveries(h, now, ref b, ref e)));
        }

        /// <summary>Records one delivery attempt (<paramref name="ok"/>: the receiver answered 2xx); returns the delivery with its new <c>status</c>.</summary>
        public IDictionary<string, object> ReportDelivery(string deliveryId, bool ok)
        {
            Input d = Input.Text(deliveryId, "deliveryId");
            return (IDictionary<string, object>)Use(h => Interop.JsonOf((ref KuatiaBytes b, ref IntPtr e) =>
            {
                fixed (byte* pd = d.Data)
                {
                    return Native.kuatia_service_report_delivery(h, pd, d.Len, ok, ref b, ref e);
                }
            }));
        }

        /// <summary>
        /// Sets the emitter profile (JSON, as for <see cref="Invoice.Validate"/>) an account's <c>dk_live_</c> keys
        /// issue with; null: the built-in sandbox profile in SIFEN's test environment (TEST ONLY).
        /// </summary>
        public void SetProductionProfile(string accountId, string profileJson)
        {
            Input a = Input.Text(accountId, "accountId"), p = Input.OptText(profileJson, "profileJson");
            Use(h =>
            {
                Interop.Call((ref IntPtr e) =>
                {
                    fixed (byte* pa = a.Data)
                    fixed (byte* pp = p.Data)
                    {
                        return Native.kuatia_service_set_production_profile(h, pa, a.Len, pp, p.Len, ref e);
                    }
                });
                return 0;
            });
        }

        /// <summary>
        /// The SIFEN calls due now for production invoices (at most <paramref name="limit"/> invoices):
        /// <c>{"account_id","service","url","content_type","body","d_id","invoices"}</c>. POST each, then
        /// <see cref="ReportSifen(IDictionary{string, object}, SifenJobOutcome)"/> the job with what came of it.
        /// </summary>
        public IList<object> DueSifen(int limit)
        {
            if (limit < 0)
            {
                throw new ArgumentOutOfRangeException("limit");
            }
            Input seed = Input.Seed();
            long now = clock();
            return (IList<object>)Use(h => Interop.JsonOf((ref KuatiaBytes b, ref IntPtr e) =>
            {
                fixed (byte* ps = seed.Data)
                {
                    return Native.kuatia_service_due_sifen(h, now, ps, seed.Len, (UIntPtr)limit, ref b, ref e);
                }
            }, seed));
        }

        /// <summary>Reports what came of a job of <see cref="DueSifen"/> (passed back as it came) and returns where each of its invoices stands.</summary>
        public IList<object> ReportSifen(IDictionary<string, object> job, SifenJobOutcome outcome)
        {
            if (job == null)
            {
                throw new ArgumentNullException("job");
            }
            return ReportSifen(Json.Serialize(job), outcome);
        }

        /// <summary>As <see cref="ReportSifen(IDictionary{string, object}, SifenJobOutcome)"/>, the job as JSON text.</summary>
        public IList<object> ReportSifen(string jobJson, SifenJobOutcome outcome)
        {
            if (outcome == null)
            {
                throw new ArgumentNullException("outcome");
            }
            Input j = Input.Text(jobJson, "jobJson"), seed = Input.Seed();
            Input body = outcome.Body == null ? Input.None : Input.Bytes(outcome.Body, "body");
            Input msg = Input.OptText(outcome.Message, "message");
            long now = clock();
            return (IList<object>)Use(h => Interop.JsonOf((ref KuatiaBytes b, ref IntPtr e) =>
            {
                fixed (byte* pj = j.Data)
                fixed (byte* pb = body.Data)
                fixed (byte* pm = msg.Data)
                fixed (byte* ps = seed.Data)
                {
                    return Native.kuatia_service_report_sifen(h, pj, j.Len, (uint)outcome.Kind, outcome.HttpStatus, pb,
                        body.Len, pm, msg.Len, now, ps, seed.Len, ref b, ref e);
                }
            }, seed));
        }
    }
}
