// kuatia for .NET: Paraguayan electronic invoices (SIFEN / e-Kuatia) over the C library (libkuatia.so, kuatia.dll).
// A thin layer: every rule lives in the Rust core; this converts types and errors. JSON inputs are JSON text
// (build it with Json.Serialize from dictionaries, or any serializer); JSON results are parsed with Json.Parse into
// dictionaries and lists; failures throw KuatiaException subclasses with the registry's code, path and every finding.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;

namespace Kuatia
{
    /// <summary>The loaded library: its version and the registry of error codes.</summary>
    public static class Library
    {
        /// <summary>The version of the loaded libkuatia (<c>"0.1.0"</c>).</summary>
        public static string Version()
        {
            return Interop.CString(Native.kuatia_version());
        }

        /// <summary>The ABI version these declarations were generated for (<c>KUATIA_ABI_VERSION</c>).</summary>
        public static string AbiVersion
        {
            get { return Native.AbiVersion; }
        }

        /// <summary>Every error code kuatia answers with, <c>[{"code", "description"}]</c>: the core's one registry.</summary>
        public static IList<object> Codes()
        {
            return (IList<object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) => Native.kuatia_error_codes(ref o, ref e));
        }

        /// <summary>
        /// Every rule a finding can name, <c>[{"rule", "code", "params": [{"name", "kind"}]}]</c>: the core's one registry
        /// (docs/errors.md), for an application that writes its own text from a finding's rule and parameters.
        /// </summary>
        public static IList<object> Rules()
        {
            return (IList<object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) => Native.kuatia_rules(ref o, ref e));
        }

        /// <summary>
        /// Chooses the language of every message read from now on, for every thread: <c>"es"</c> (Spanish of Paraguay,
        /// the default) or <c>"en"</c>; any tag the library parses (<c>"es-PY"</c>, <c>"en-US"</c>) is accepted, and an
        /// unknown one reads as Spanish.
        /// </summary>
        public static void SetLanguage(string lang)
        {
            if (lang == null)
            {
                throw new ArgumentNullException("lang");
            }
            Interop.Language = lang;
        }

        /// <summary>The language chosen with <see cref="SetLanguage"/> (<c>"es"</c> by default).</summary>
        public static string Language
        {
            get { return Interop.Language; }
        }

        /// <summary>
        /// A report kuatia wrote (a validation report, a verification, a findings array; JSON text) with every finding's
        /// message rendered again in <paramref name="lang"/> (null: the chosen language), as JSON text.
        /// </summary>
        public static unsafe string Localize(string reportJson, string lang = null)
        {
            Input r = Input.Text(reportJson, "reportJson");
            IntPtr l = Interop.CLang(lang);
            try
            {
                return Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
                {
                    fixed (byte* pr = r.Data)
                    {
                        return Native.kuatia_findings_localize(pr, r.Len, l, ref o, ref e);
                    }
                });
            }
            finally
            {
                Marshal.FreeHGlobal(l);
            }
        }

        /// <summary>The current Paraguay local time as kuatia expects it (<c>yyyy-MM-ddTHH:mm:ss</c>); the host owns the clock.</summary>
        public static string ParaguayNow()
        {
            TimeZoneInfo tz = null;
            foreach (string id in new[] { "America/Asuncion", "Paraguay Standard Time" })
            {
                try
                {
                    tz = TimeZoneInfo.FindSystemTimeZoneById(id);
                    break;
                }
                catch (TimeZoneNotFoundException)
                {
                }
                catch (InvalidTimeZoneException)
                {
                }
            }
            if (tz == null)
            {
                throw new InvalidOperationException("no time zone data for America/Asuncion: pass the time explicitly");
            }
            return Format(TimeZoneInfo.ConvertTime(DateTimeOffset.UtcNow, tz).DateTime);
        }

        internal static string Format(DateTime t)
        {
            return t.ToString("yyyy-MM-dd'T'HH:mm:ss", CultureInfo.InvariantCulture);
        }
    }

    /// <summary>RUC helpers (mod-11 check digit).</summary>
    public static unsafe class Ruc
    {
        /// <summary>The check digit (DV) of a RUC body: <c>Ruc.Dv("80069563") == 1</c>. Throws <see cref="InvalidInputException"/>.</summary>
        public static int Dv(string body)
        {
            Input b = Input.Text(body, "body");
            byte dv = 0;
            Interop.Call((ref IntPtr e) =>
            {
                fixed (byte* p = b.Data)
                {
                    return Native.kuatia_ruc_dv(p, b.Len, out dv, ref e);
                }
            });
            return dv;
        }

        /// <summary>Checks a complete RUC (<c>80069563-1</c>); throws <see cref="InvalidInputException"/> <c>INVALID_RUC</c> when it is not one.</summary>
        public static void Check(string ruc)
        {
            Input r = Input.Text(ruc, "ruc");
            Interop.Call((ref IntPtr e) =>
            {
                fixed (byte* p = r.Data)
                {
                    return Native.kuatia_ruc_check(p, r.Len, ref e);
                }
            });
        }

        /// <summary>True when <paramref name="ruc"/> is a well-formed RUC with the right DV.</summary>
        public static bool IsValid(string ruc)
        {
            try
            {
                Check(ruc);
                return true;
            }
            catch (InvalidInputException)
            {
                return false;
            }
        }
    }

    /// <summary>CDC helpers (the 44-digit código de control).</summary>
    public static unsafe class Cdc
    {
        /// <summary>The CDC from its fields as JSON (<c>tipo_documento</c>, <c>ruc</c>, <c>establecimiento</c>, <c>punto</c>, <c>numero</c>, <c>tipo_contribuyente</c>, <c>fecha</c>, <c>tipo_emision</c>, <c>codigo_seguridad</c>).</summary>
        public static string Build(string fieldsJson)
        {
            Input f = Input.Text(fieldsJson, "fieldsJson");
            return Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* p = f.Data)
                {
                    return Native.kuatia_cdc_build(p, f.Len, ref o, ref e);
                }
            });
        }

        /// <summary>Checks a CDC and returns its parts (<c>cdc</c>, <c>grouped</c>, <c>dv</c> and the fields).</summary>
        public static IDictionary<string, object> Parse(string cdc)
        {
            Input c = Input.Text(cdc, "cdc");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* p = c.Data)
                {
                    return Native.kuatia_cdc_parse(p, c.Len, ref o, ref e);
                }
            });
        }
    }

    /// <summary>A validation report: <see cref="Ok"/> is true when <see cref="Errors"/> is empty.</summary>
    public sealed class Report
    {
        internal Report(bool ok, IList<Finding> errors)
        {
            Ok = ok;
            Errors = errors;
        }

        /// <summary>True when the request is valid.</summary>
        public bool Ok { get; private set; }

        /// <summary>Every problem (code, path, message).</summary>
        public IList<Finding> Errors { get; private set; }
    }

    /// <summary>An issued document: the signed <c>rDE</c> XML and its summary.</summary>
    public sealed class Issued
    {
        internal Issued(string xml, IDictionary<string, object> s)
        {
            Xml = xml;
            Cdc = (string)s["cdc"];
            Numero = (string)s["numero"];
            Qr = (string)s["qr"];
            DigestValue = (string)s["digest_value"];
            FechaEmision = (string)s["fecha_emision"];
        }

        /// <summary>The signed <c>rDE</c>, QR included.</summary>
        public string Xml { get; private set; }

        /// <summary>The 44-digit CDC.</summary>
        public string Cdc { get; private set; }

        /// <summary>The document number, <c>001-001-0000001</c>.</summary>
        public string Numero { get; private set; }

        /// <summary>The <c>dCarQR</c> URL.</summary>
        public string Qr { get; private set; }

        /// <summary>The signature's DigestValue.</summary>
        public string DigestValue { get; private set; }

        /// <summary>The emission time, Paraguay local time.</summary>
        public string FechaEmision { get; private set; }
    }

    /// <summary>Invoices: validation, totals, numbering, preview and issuing.</summary>
    public static unsafe class Invoice
    {
        /// <summary>
        /// Validates a request (the JSON body of <c>POST /v1/facturas</c>) against <paramref name="profileJson"/>
        /// (null: the sandbox profile) at <paramref name="now"/> (<c>yyyy-MM-ddTHH:mm:ss</c>, Paraguay time; null:
        /// the clock). A request with problems is a <see cref="Report"/> with <c>Ok</c> false; bad arguments throw.
        /// </summary>
        public static Report Validate(string requestJson, string profileJson = null, string now = null)
        {
            Input r = Input.Text(requestJson, "requestJson"), p = Input.OptText(profileJson, "profileJson");
            Input n = Input.Text(now ?? Library.ParaguayNow(), "now");
            string report = Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pr = r.Data)
                fixed (byte* pp = p.Data)
                fixed (byte* pn = n.Data)
                {
                    return Native.kuatia_invoice_validate(pr, r.Len, pp, p.Len, pn, n.Len, ref o, ref e);
                }
            });
            var raw = (IDictionary<string, object>)Interop.ParseResult(Library.Localize(report));
            var errors = new List<Finding>();
            foreach (object item in (IList<object>)raw["errors"])
            {
                errors.Add(Finding.FromJson((IDictionary<string, object>)item));
            }
            return new Report((bool)raw["ok"], errors.AsReadOnly());
        }

        /// <summary>Item values and document totals (<c>{"tipo_documento","moneda","items","totales"}</c>, amounts as strings).</summary>
        public static IDictionary<string, object> Totals(string requestJson)
        {
            Input r = Input.Text(requestJson, "requestJson");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pr = r.Data)
                {
                    return Native.kuatia_invoice_totals(pr, r.Len, ref o, ref e);
                }
            });
        }

        /// <summary>The numbering sequence (<c>tipo_documento</c>, <c>timbrado</c>, <c>establecimiento</c>, <c>punto</c>) the request draws from; reserve the next number of it before <see cref="Issue"/>.</summary>
        public static IDictionary<string, object> NumberingKey(string requestJson, string profileJson = null, string now = null)
        {
            Input r = Input.Text(requestJson, "requestJson"), p = Input.OptText(profileJson, "profileJson");
            Input n = Input.Text(now ?? Library.ParaguayNow(), "now");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pr = r.Data)
                fixed (byte* pp = p.Data)
                fixed (byte* pn = n.Data)
                {
                    return Native.kuatia_invoice_numbering_key(pr, r.Len, pp, p.Len, pn, n.Len, ref o, ref e);
                }
            });
        }

        /// <summary>The unsigned <c>rDE</c> the request would become (no signature, no QR), with the CDC issuing will give.</summary>
        public static string PreviewXml(string requestJson, uint numero, uint codigoSeguridad, string profileJson = null,
            string now = null)
        {
            Input r = Input.Text(requestJson, "requestJson"), p = Input.OptText(profileJson, "profileJson");
            Input n = Input.Text(now ?? Library.ParaguayNow(), "now");
            return Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pr = r.Data)
                fixed (byte* pp = p.Data)
                fixed (byte* pn = n.Data)
                {
                    return Native.kuatia_invoice_preview_xml(pr, r.Len, pp, p.Len, pn, n.Len, numero, codigoSeguridad,
                        ref o, ref e);
                }
            });
        }

        /// <summary>
        /// Validates, builds, signs and QR-completes one document. <paramref name="numero"/> is reserved by the
        /// caller from the sequence <see cref="NumberingKey"/> names; <paramref name="codigoSeguridad"/> null draws
        /// one from the OS CSPRNG (never pass a counter); <paramref name="profileJson"/> null is the built-in sandbox
        /// profile (TEST ONLY). Throws <see cref="InvalidInputException"/> with every finding.
        /// </summary>
        public static Issued Issue(string requestJson, Signer signer, uint numero, uint? codigoSeguridad = null,
            string profileJson = null, string now = null)
        {
            if (signer == null)
            {
                throw new ArgumentNullException("signer");
            }
            uint code = codigoSeguridad ?? RandomSecurityCode();
            Input r = Input.Text(requestJson, "requestJson"), p = Input.OptText(profileJson, "profileJson");
            Input n = Input.Text(now ?? Library.ParaguayNow(), "now");
            byte[][] outs = Interop.With(signer.Handle, "signer", s => Interop.Bytes2(
                (ref KuatiaBytes xml, ref KuatiaBytes summary, ref IntPtr e) =>
                {
                    fixed (byte* pr = r.Data)
                    fixed (byte* pp = p.Data)
                    fixed (byte* pn = n.Data)
                    {
                        return Native.kuatia_invoice_issue(pr, r.Len, pp, p.Len, s, pn, n.Len, numero, code, ref xml,
                            ref summary, ref e);
                    }
                }));
            var sum = (IDictionary<string, object>)Interop.ParseResult(Interop.Utf8.GetString(outs[1]));
            return new Issued(Interop.Utf8.GetString(outs[0]), sum);
        }

        /// <summary>A security code (<c>dCodSeg</c>) drawn from the OS CSPRNG; the library maps it into 1..999999999.</summary>
        public static uint RandomSecurityCode()
        {
            var b = new byte[4];
            using (var rng = System.Security.Cryptography.RandomNumberGenerator.Create())
            {
                rng.GetBytes(b);
            }
            return BitConverter.ToUInt32(b, 0);
        }
    }

    /// <summary>The verdict on a signature and the library's full report.</summary>
    public sealed class Verification
    {
        internal Verification(bool valid, IDictionary<string, object> report)
        {
            Valid = valid;
            Report = report;
        }

        /// <summary>True when digest, signature and certificate check out.</summary>
        public bool Valid { get; private set; }

        /// <summary><c>valid</c>, <c>reference_id</c>, <c>digest_ok</c>, <c>signature_ok</c>, <c>certificate</c>, <c>certificate_valid_at</c>, <c>error</c>.</summary>
        public IDictionary<string, object> Report { get; private set; }
    }

    /// <summary>XMLDSig signatures (SIFEN profile: RSA-SHA256, exclusive C14N, enveloped).</summary>
    public static unsafe class XmlSignature
    {
        /// <summary>Signs the element of <paramref name="xml"/> whose <c>Id</c> is <paramref name="id"/> and returns the document with its Signature.</summary>
        public static string Sign(string xml, string id, Signer signer)
        {
            if (signer == null)
            {
                throw new ArgumentNullException("signer");
            }
            Input x = Input.Text(xml, "xml"), i = Input.Text(id, "id");
            return Interop.With(signer.Handle, "signer", s => Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* px = x.Data)
                fixed (byte* pi = i.Data)
                {
                    return Native.kuatia_xml_sign(px, x.Len, pi, i.Len, s, ref o, ref e);
                }
            }));
        }

        /// <summary>
        /// Verifies the first signature of <paramref name="xml"/>; <paramref name="at"/> (optional, Paraguay time) is
        /// when the certificate must have been valid. An invalid signature is a Verification with <c>Valid</c>
        /// false, not an exception.
        /// </summary>
        public static Verification Verify(string xml, string at = null)
        {
            Input x = Input.Text(xml, "xml"), a = Input.OptText(at, "at");
            byte valid = 0;
            var report = (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* px = x.Data)
                fixed (byte* pa = a.Data)
                {
                    return Native.kuatia_xml_verify(px, x.Len, pa, a.Len, out valid, ref o, ref e);
                }
            });
            return new Verification(valid != 0, report);
        }
    }

    /// <summary>The <c>dCarQR</c> of the KuDE.</summary>
    public static unsafe class Qr
    {
        /// <summary>The <c>dCarQR</c> URL from its parts as JSON (<c>cdc</c>, <c>fecha_emision</c>, <c>receptor</c>, <c>total</c>, <c>total_iva</c>, <c>items</c>, <c>digest_value</c>, <c>csc_id</c>, <c>csc</c>, <c>ambiente</c>).</summary>
        public static string Build(string fieldsJson)
        {
            Input f = Input.Text(fieldsJson, "fieldsJson");
            return Interop.Text((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* p = f.Data)
                {
                    return Native.kuatia_qr_build(p, f.Len, ref o, ref e);
                }
            });
        }

        /// <summary>The parts of a <c>dCarQR</c>; with <paramref name="csc"/> also <c>hash_ok</c> (the <c>cHashQR</c> check).</summary>
        public static IDictionary<string, object> Parse(string dcarqr, string csc = null)
        {
            Input q = Input.Text(dcarqr, "dcarqr"), c = Input.OptText(csc, "csc");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pq = q.Data)
                fixed (byte* pc = c.Data)
                {
                    return Native.kuatia_qr_parse(pq, q.Len, pc, c.Len, ref o, ref e);
                }
            });
        }
    }

    /// <summary>The KuDE, the printed representation of a document.</summary>
    public static unsafe class Kude
    {
        /// <summary>The KuDE of a signed <c>rDE</c> as PDF bytes; <paramref name="preview"/> adds a "not valid" watermark for documents SIFEN has not approved.</summary>
        public static byte[] Pdf(string xml, KudeFormat format = KudeFormat.A4, bool preview = false)
        {
            Input x = Input.Text(xml, "xml");
            return Interop.Bytes((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* px = x.Data)
                {
                    return Native.kuatia_kude_pdf(px, x.Len, (uint)format, preview, ref o, ref e);
                }
            });
        }
    }
}
