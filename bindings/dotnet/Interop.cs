// The plumbing every call shares, over the generated declarations of Native.g.cs (never a hand-written DllImport):
// UTF-8 inputs, SafeHandles for the owned pointers the ABI description lists (kuatia_bytes, kuatia_error,
// kuatia_signer, kuatia_service), and the status check that turns a kuatia_error into a KuatiaException.
using System;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;

namespace Kuatia
{
    /// <summary>One input of a C call: UTF-8 bytes and their length; <c>Data</c> null stands for an absent (NULL) input.</summary>
    internal sealed class Input
    {
        private static readonly UTF8Encoding Strict = new UTF8Encoding(false, true);
        internal static readonly Input None = new Input(null, 0, false);

        /// <summary>Never empty when given (a C# <c>fixed</c> on an empty array yields NULL, which kuatia reads as "absent").</summary>
        internal readonly byte[] Data;
        internal readonly UIntPtr Len;
        private readonly bool secret;

        private Input(byte[] data, int len, bool secret)
        {
            Data = data;
            Len = (UIntPtr)len;
            this.secret = secret;
        }

        internal static Input Bytes(byte[] data, string name, bool secret = false)
        {
            if (data == null)
            {
                throw new ArgumentNullException(name);
            }
            if (data.Length == 0)
            {
                return new Input(new byte[1], 0, secret);
            }
            return new Input(data, data.Length, secret);
        }

        /// <summary>A required text input as UTF-8; a string with a lone surrogate is an <see cref="ArgumentException"/>.</summary>
        internal static Input Text(string s, string name, bool secret = false)
        {
            if (s == null)
            {
                throw new ArgumentNullException(name);
            }
            byte[] b;
            try
            {
                b = Strict.GetBytes(s);
            }
            catch (EncoderFallbackException)
            {
                throw new ArgumentException("not valid Unicode text (a lone surrogate)", name);
            }
            return Bytes(b, name, secret);
        }

        /// <summary>An optional text input: null stays NULL ("not given").</summary>
        internal static Input OptText(string s, string name)
        {
            return s == null ? None : Text(s, name);
        }

        /// <summary>Fresh CSPRNG bytes for the calls that take a seed (<c>KUATIA_SEED_LEN</c>).</summary>
        internal static Input Seed()
        {
            var b = new byte[Native.SeedLen];
            using (var rng = RandomNumberGenerator.Create())
            {
                rng.GetBytes(b);
            }
            return new Input(b, b.Length, true);
        }

        /// <summary>Zeroes a secret's copy (a password, a seed) once the call returned.</summary>
        internal void Wipe()
        {
            if (secret && Data != null)
            {
                Array.Clear(Data, 0, Data.Length);
            }
        }
    }

    /// <summary>
    /// A pointer kuatia handed out, released once with its free function (the ABI description names it). Dispose
    /// refuses new users at once; the pointer itself is released when the last call using it returns.
    /// </summary>
    internal abstract class OwnedHandle : SafeHandle
    {
        private volatile bool disposeRequested;

        protected OwnedHandle() : base(IntPtr.Zero, true)
        {
        }

        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>True once Dispose ran, even while calls in other threads still hold the pointer.</summary>
        internal bool DisposeRequested
        {
            get { return disposeRequested; }
        }

        internal void Adopt(IntPtr p)
        {
            SetHandle(p);
        }

        protected override void Dispose(bool disposing)
        {
            disposeRequested = true;
            base.Dispose(disposing);
        }
    }

    /// <summary>A <c>kuatia_error *</c>, freed with <c>kuatia_error_free</c>.</summary>
    internal sealed class ErrorHandle : OwnedHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.kuatia_error_free(handle);
            return true;
        }
    }

    /// <summary>A <c>kuatia_bytes</c> buffer kuatia filled, freed with <c>kuatia_bytes_free</c>.</summary>
    internal sealed class BytesHandle : OwnedHandle
    {
        private UIntPtr len;

        internal void Adopt(KuatiaBytes b)
        {
            len = b.Len;
            SetHandle(b.Ptr);
        }

        /// <summary>A managed copy of the bytes (empty for a NULL buffer).</summary>
        internal byte[] ToArray()
        {
            ulong n = len.ToUInt64();
            if (IsInvalid || n == 0)
            {
                return new byte[0];
            }
            if (n > int.MaxValue)
            {
                throw new InvalidOperationException("kuatia returned " + n + " bytes, more than a .NET array holds");
            }
            var b = new byte[(int)n];
            Marshal.Copy(handle, b, 0, (int)n);
            return b;
        }

        protected override bool ReleaseHandle()
        {
            var b = new KuatiaBytes { Ptr = handle, Len = len };
            Native.kuatia_bytes_free(ref b);
            return true;
        }
    }

    /// <summary>A <c>kuatia_signer *</c>, freed with <c>kuatia_signer_free</c> (the key is wiped).</summary>
    internal sealed class SignerHandle : OwnedHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.kuatia_signer_free(handle);
            return true;
        }
    }

    /// <summary>A <c>kuatia_service *</c>, freed with <c>kuatia_service_free</c>.</summary>
    internal sealed class ServiceHandle : OwnedHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.kuatia_service_free(handle);
            return true;
        }
    }

    /// <summary>A C call that reports through <c>kuatia_error **err</c>.</summary>
    internal delegate Status PlainCall(ref IntPtr err);

    /// <summary>A C call that fills one owned buffer.</summary>
    internal delegate Status OutCall(ref KuatiaBytes output, ref IntPtr err);

    /// <summary>A C call that fills two owned buffers.</summary>
    internal delegate Status TwoOutCall(ref KuatiaBytes first, ref KuatiaBytes second, ref IntPtr err);

    /// <summary>A C call that hands out one opaque handle.</summary>
    internal delegate Status HandleCall(out IntPtr handle, ref IntPtr err);

    internal static unsafe class Interop
    {
        internal static readonly UTF8Encoding Utf8 = new UTF8Encoding(false, false);

        /// <summary>Runs a call whose only result is its status.</summary>
        internal static void Call(PlainCall call, params Input[] wipe)
        {
            IntPtr err = IntPtr.Zero;
            Status st = Status.Ok;
            using (var error = new ErrorHandle())
            {
                try
                {
                    st = call(ref err);
                }
                finally
                {
                    error.Adopt(err);
                    WipeAll(wipe);
                }
                Check(st, error);
            }
        }

        /// <summary>Runs a call and returns a copy of its buffer; the buffer and the error are freed in every case.</summary>
        internal static byte[] Bytes(OutCall call, params Input[] wipe)
        {
            var buf = default(KuatiaBytes);
            IntPtr err = IntPtr.Zero;
            Status st = Status.Ok;
            using (var owned = new BytesHandle())
            using (var error = new ErrorHandle())
            {
                try
                {
                    st = call(ref buf, ref err);
                }
                finally
                {
                    owned.Adopt(buf);
                    error.Adopt(err);
                    WipeAll(wipe);
                }
                Check(st, error);
                return owned.ToArray();
            }
        }

        /// <summary>As <see cref="Bytes(OutCall, Input[])"/>, for two buffers.</summary>
        internal static byte[][] Bytes2(TwoOutCall call, params Input[] wipe)
        {
            var a = default(KuatiaBytes);
            var b = default(KuatiaBytes);
            IntPtr err = IntPtr.Zero;
            Status st = Status.Ok;
            using (var first = new BytesHandle())
            using (var second = new BytesHandle())
            using (var error = new ErrorHandle())
            {
                try
                {
                    st = call(ref a, ref b, ref err);
                }
                finally
                {
                    first.Adopt(a);
                    second.Adopt(b);
                    error.Adopt(err);
                    WipeAll(wipe);
                }
                Check(st, error);
                return new[] { first.ToArray(), second.ToArray() };
            }
        }

        /// <summary>As <see cref="Bytes(OutCall, Input[])"/>, decoded as UTF-8 text.</summary>
        internal static string Text(OutCall call, params Input[] wipe)
        {
            return Utf8.GetString(Bytes(call, wipe));
        }

        /// <summary>As <see cref="Bytes(OutCall, Input[])"/>, parsed as JSON.</summary>
        internal static object JsonOf(OutCall call, params Input[] wipe)
        {
            return ParseResult(Text(call, wipe));
        }

        /// <summary>Runs a call that hands out a handle; <paramref name="adopt"/> takes it over (into a SafeHandle) before anything can throw.</summary>
        internal static void Handle(HandleCall call, Action<IntPtr> adopt, params Input[] wipe)
        {
            IntPtr h = IntPtr.Zero;
            IntPtr err = IntPtr.Zero;
            Status st = Status.Ok;
            using (var error = new ErrorHandle())
            {
                try
                {
                    st = call(out h, ref err);
                }
                finally
                {
                    adopt(h);
                    error.Adopt(err);
                    WipeAll(wipe);
                }
                Check(st, error);
            }
        }

        /// <summary>
        /// Runs <paramref name="body"/> with the raw pointer of a live handle. A Dispose in another thread refuses
        /// later calls at once and releases the pointer when the calls holding it have returned.
        /// </summary>
        internal static T With<T>(OwnedHandle h, string what, Func<IntPtr, T> body)
        {
            bool added = false;
            try
            {
                try
                {
                    // SafeHandle alone accepts new users after Dispose while others still hold it.
                    if (h.DisposeRequested)
                    {
                        throw new ObjectDisposedException(what);
                    }
                    h.DangerousAddRef(ref added);
                }
                catch (ObjectDisposedException)
                {
                    throw new ObjectDisposedException(what, "the " + what + " is disposed");
                }
                return body(h.DangerousGetHandle());
            }
            finally
            {
                if (added)
                {
                    h.DangerousRelease();
                }
            }
        }

        /// <summary>As <see cref="With{T}"/> for an optional handle: IntPtr.Zero (NULL) when absent.</summary>
        internal static T WithOpt<T>(OwnedHandle h, string what, Func<IntPtr, T> body)
        {
            return h == null ? body(IntPtr.Zero) : With(h, what, body);
        }

        /// <summary>Parses JSON kuatia wrote; a failure here is a bug on one side of the boundary.</summary>
        internal static object ParseResult(string json)
        {
            try
            {
                return Json.Parse(json);
            }
            catch (FormatException e)
            {
                throw new InvalidOperationException("kuatia returned invalid JSON: " + e.Message, e);
            }
        }

        /// <summary>Throws the <see cref="KuatiaException"/> of a failed call (the error is freed by its owner).</summary>
        private static void Check(Status st, ErrorHandle error)
        {
            if (st != Status.Ok)
            {
                throw KuatiaException.FromNative(st, error);
            }
        }

        private static void WipeAll(Input[] inputs)
        {
            foreach (var i in inputs)
            {
                i.Wipe();
            }
        }

        /// <summary>The language messages are read in (<see cref="Library.SetLanguage"/>); a tag the library parses.</summary>
        internal static volatile string Language = "es";

        /// <summary><paramref name="lang"/> (null: <see cref="Language"/>) as a NUL-terminated UTF-8 C string; free it with <c>Marshal.FreeHGlobal</c>.</summary>
        internal static IntPtr CLang(string lang)
        {
            byte[] b = Utf8.GetBytes((lang ?? Language).Replace("\0", ""));
            IntPtr p = Marshal.AllocHGlobal(b.Length + 1);
            Marshal.Copy(b, 0, p, b.Length);
            Marshal.WriteByte(p, b.Length, 0);
            return p;
        }

        /// <summary>A NUL-terminated UTF-8 C string owned by kuatia, as .NET text ("" for NULL).</summary>
        internal static string CString(IntPtr p)
        {
            if (p == IntPtr.Zero)
            {
                return "";
            }
            byte* b = (byte*)p;
            int n = 0;
            while (b[n] != 0)
            {
                n++;
            }
            return Utf8.GetString(b, n);
        }
    }
}
