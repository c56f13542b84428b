using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Kuatia
{
    /// <summary>SIFEN's web services: the SOAP requests the host posts over mutual TLS, events, and the answers.</summary>
    public static unsafe class Sifen
    {
        /// <summary>
        /// The SOAP request of a SIFEN web service, <c>{"service","url","content_type","xml"}</c> (plus <c>"cdcs"</c>
        /// for a lot). <paramref name="kind"/> is <c>recibe</c> (<paramref name="arg"/>: a signed rDE),
        /// <c>recibe-lote</c> (a JSON array of signed rDEs), <c>consulta</c> (a CDC), <c>consulta-lote</c> (the lot
        /// number), <c>consulta-ruc</c> (a RUC) or <c>evento</c> (see <see cref="EventRequest"/>);
        /// <paramref name="dId"/> is the request identifier.
        /// </summary>
        public static IDictionary<string, object> Request(string kind, string arg, ulong dId, bool production = false)
        {
            Input k = Input.Text(kind, "kind"), a = Input.Text(arg, "arg");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* pk = k.Data)
                fixed (byte* pa = a.Data)
                {
                    return Native.kuatia_sifen_request(pk, k.Len, pa, a.Len, dId, production, ref o, ref e);
                }
            });
        }

        /// <summary>
        /// Builds and signs one SIFEN event from its JSON form (<c>"tipo"</c>: <c>cancelacion</c>,
        /// <c>inutilizacion</c>, <c>nominacion</c>, ...; <c>"id"</c>; <c>"fecha_firma"</c>; the fields of its kind)
        /// and returns <c>{"id","kind","cdc","xml"}</c> for <see cref="EventRequest"/>. <paramref name="firmanteRuc"/>
        /// is who must sign; the signer's certificate must carry it.
        /// </summary>
        public static IDictionary<string, object> EventSign(string eventJson, string firmanteRuc, Signer signer)
        {
            if (signer == null)
            {
                throw new ArgumentNullException("signer");
            }
            Input ev = Input.Text(eventJson, "eventJson"), r = Input.Text(firmanteRuc, "firmanteRuc");
            return (IDictionary<string, object>)Interop.With(signer.Handle, "signer", s => Interop.JsonOf(
                (ref KuatiaBytes o, ref IntPtr e) =>
                {
                    fixed (byte* pe = ev.Data)
                    fixed (byte* pr = r.Data)
                    {
                        return Native.kuatia_sifen_event_sign(pe, ev.Len, pr, r.Len, s, ref o, ref e);
                    }
                }));
        }

        /// <summary><see cref="Request"/> <c>"evento"</c> for events returned by <see cref="EventSign"/> (1 to 15).</summary>
        public static IDictionary<string, object> EventRequest(IEnumerable<IDictionary<string, object>> signedEvents,
            ulong dId, bool production = false)
        {
            if (signedEvents == null)
            {
                throw new ArgumentNullException("signedEvents");
            }
            return Request("evento", Json.Serialize(signedEvents), dId, production);
        }

        /// <summary>
        /// SIFEN's answer (the SOAP XML of the HTTP response, raw bytes) as <c>{"service","result","action"}</c>.
        /// Throws <see cref="InvalidInputException"/> <c>SIFEN_UNEXPECTED_RESPONSE</c> or <c>SIFEN_SOAP_FAULT</c>.
        /// </summary>
        public static IDictionary<string, object> ParseResponse(byte[] response)
        {
            Input r = Input.Bytes(response, "response");
            return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
            {
                fixed (byte* p = r.Data)
                {
                    return Native.kuatia_sifen_parse_response(p, r.Len, ref o, ref e);
                }
            });
        }

        /// <summary>
        /// What a SIFEN response code means and its usual fix, <c>{"code","meaning","fix"}</c>, in <paramref name="lang"/>
        /// (null: the chosen language, <see cref="Library.SetLanguage"/>); null when undocumented.
        /// </summary>
        public static IDictionary<string, object> Describe(string code, string lang = null)
        {
            Input c = Input.Text(code, "code");
            IntPtr l = Interop.CLang(lang);
            try
            {
                return (IDictionary<string, object>)Interop.JsonOf((ref KuatiaBytes o, ref IntPtr e) =>
                {
                    fixed (byte* p = c.Data)
                    {
                        return Native.kuatia_sifen_describe_in(p, c.Len, l, ref o, ref e);
                    }
                });
            }
            finally
            {
                Marshal.FreeHGlobal(l);
            }
        }
    }
}
