using System;

namespace Kuatia
{
    /// <summary>
    /// A signing key and its certificate (<c>kuatia_signer</c>), held by a SafeHandle: <c>Dispose</c> it (or let the
    /// finalizer free it). One signer may be used by several threads at once; Dispose refuses later calls at once and
    /// frees the key when the calls already running have returned.
    /// </summary>
    public sealed unsafe class Signer : IDisposable
    {
        internal readonly SignerHandle Handle;

        private Signer(SignerHandle handle)
        {
            Handle = handle;
        }

        /// <summary>
        /// Loads a PKCS#12 (<c>.p12</c>/<c>.pfx</c>) key and certificate. Throws <see cref="SignException"/>
        /// (<c>P12_INVALID</c>, <c>P12_WRONG_PASSWORD</c>, <c>KEY_UNSUPPORTED</c>, ...); the password is wiped from
        /// the binding's copy after the call and never part of a message.
        /// </summary>
        public static Signer FromP12(byte[] p12, string password)
        {
            Input k = Input.Bytes(p12, "p12"), pw = Input.Text(password, "password", true);
            return Make((out IntPtr h, ref IntPtr e) =>
            {
                fixed (byte* pk = k.Data)
                fixed (byte* pp = pw.Data)
                {
                    return Native.kuatia_signer_from_p12(pk, k.Len, pp, pw.Len, out h, ref e);
                }
            }, pw);
        }

        /// <summary>Loads an unencrypted PEM private key and a PEM certificate.</summary>
        public static Signer FromPem(string keyPem, string certPem)
        {
            Input k = Input.Text(keyPem, "keyPem", true), c = Input.Text(certPem, "certPem");
            return Make((out IntPtr h, ref IntPtr e) =>
            {
                fixed (byte* pk = k.Data)
                fixed (byte* pc = c.Data)
                {
                    return Native.kuatia_signer_from_pem(pk, k.Len, pc, c.Len, out h, ref e);
                }
            }, k);
        }

        /// <summary>TEST ONLY: the public sandbox key and self-signed certificate (SIFEN rejects its signatures).</summary>
        public static Signer Sandbox()
        {
            return Make((out IntPtr h, ref IntPtr e) => Native.kuatia_signer_sandbox(out h, ref e));
        }

        private static Signer Make(HandleCall call, params Input[] wipe)
        {
            var handle = new SignerHandle();
            try
            {
                Interop.Handle(call, handle.Adopt, wipe);
            }
            catch
            {
                handle.Dispose();
                throw;
            }
            return new Signer(handle);
        }

        /// <summary>True once disposed.</summary>
        public bool IsDisposed
        {
            get { return Handle.DisposeRequested; }
        }

        /// <summary>Signs the element whose <c>Id</c> is <paramref name="id"/> (see <see cref="XmlSignature.Sign"/>).</summary>
        public string Sign(string xml, string id)
        {
            return XmlSignature.Sign(xml, id, this);
        }

        /// <summary>Frees the key (wiped by the library). Idempotent.</summary>
        public void Dispose()
        {
            Handle.Dispose();
        }
    }
}
