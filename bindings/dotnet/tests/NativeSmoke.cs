// A smoke test of the generated P/Invoke declarations (Native.g.cs) against libkuatia, run by scripts/ffi-check.sh
// under Mono: every kind of parameter the C ABI has (UTF-8 input and length, an owned kuatia_bytes result, an
// opaque handle out and back in, a borrowed error text, a NUL-terminated text input, a C bool out, a uint8_t out, the status enum) crosses the
// boundary once. The C# binding itself (issue 31) will have its own tests; this proves the declarations it starts
// from match the library.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Kuatia.Tests
{
    internal static unsafe class NativeSmoke
    {
        private static int failures;

        private static void Check(bool ok, string what)
        {
            Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
            if (!ok)
            {
                failures++;
            }
        }

        private static string Take(ref KuatiaBytes b)
        {
            string s = Marshal.PtrToStringAnsi(b.Ptr, (int)b.Len.ToUInt64());
            Native.kuatia_bytes_free(ref b);
            return s;
        }

        private static int Main()
        {
            string version = Marshal.PtrToStringAnsi(Native.kuatia_version());
            Check(version.StartsWith(Native.AbiVersion + "."), "kuatia_version " + version + " has ABI " + Native.AbiVersion);

            byte[] body = Encoding.UTF8.GetBytes("80069563");
            IntPtr err = IntPtr.Zero;
            byte dv;
            Status st;
            fixed (byte* p = body)
            {
                st = Native.kuatia_ruc_dv(p, (UIntPtr)body.Length, out dv, ref err);
            }
            Check(st == Status.Ok && dv == 1 && err == IntPtr.Zero, "kuatia_ruc_dv(80069563) = " + dv);

            byte[] bad = Encoding.UTF8.GetBytes("12X");
            fixed (byte* p = bad)
            {
                st = Native.kuatia_ruc_check(p, (UIntPtr)bad.Length, ref err);
            }
            string code = Marshal.PtrToStringAnsi(Native.kuatia_error_code(err));
            Check(st == Status.InvalidInput && Native.kuatia_error_status(err) == Status.InvalidInput
                  && code == "INVALID_RUC", "kuatia_ruc_check(12X) fails with " + st + " / " + code);
            // A NUL-terminated text input (a language tag) and the rule id of the first finding.
            IntPtr en = Marshal.StringToHGlobalAnsi("en");
            string rule = Marshal.PtrToStringAnsi(Native.kuatia_error_rule(err));
            bool english = Native.kuatia_error_message_in(err, en) == Native.kuatia_error_message_in(err, en);
            Marshal.FreeHGlobal(en);
            Check(rule.Length > 0 && english, "kuatia_error_rule / kuatia_error_message_in(err, \"en\"): " + rule);
            Native.kuatia_error_free(err);
            err = IntPtr.Zero;

            KuatiaBytes codes = default(KuatiaBytes);
            st = Native.kuatia_error_codes(ref codes, ref err);
            string json = Take(ref codes);
            Check(st == Status.Ok && json.Contains("\"INVALID_RUC\"") && codes.Ptr == IntPtr.Zero,
                  "kuatia_error_codes writes the registry and kuatia_bytes_free resets the buffer");

            IntPtr signer;
            st = Native.kuatia_signer_sandbox(out signer, ref err);
            Check(st == Status.Ok && signer != IntPtr.Zero, "kuatia_signer_sandbox hands out a signer");
            byte[] xml = Encoding.UTF8.GetBytes("<r><a Id=\"x1\">t</a></r>");
            byte[] id = Encoding.UTF8.GetBytes("x1");
            KuatiaBytes signed = default(KuatiaBytes);
            fixed (byte* px = xml)
            fixed (byte* pid = id)
            {
                st = Native.kuatia_xml_sign(px, (UIntPtr)xml.Length, pid, (UIntPtr)id.Length, signer, ref signed, ref err);
            }
            byte[] signedXml = Encoding.UTF8.GetBytes(Take(ref signed));
            Check(st == Status.Ok, "kuatia_xml_sign with the borrowed signer");
            KuatiaBytes report = default(KuatiaBytes);
            byte valid;
            fixed (byte* px = signedXml)
            {
                st = Native.kuatia_xml_verify(px, (UIntPtr)signedXml.Length, null, UIntPtr.Zero, out valid, ref report,
                    ref err);
            }
            string rep = Take(ref report);
            Check(st == Status.Ok && valid == 1 && rep.Contains("\"valid\":true"), "kuatia_xml_verify: valid (C bool out)");
            Native.kuatia_signer_free(signer);

            Console.WriteLine("dotnet native smoke: " + (failures == 0 ? "OK" : failures + " failed"));
            return failures == 0 ? 0 : 1;
        }
    }
}
