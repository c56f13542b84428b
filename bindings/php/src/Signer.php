<?php

declare(strict_types=1);

namespace Kuatia;

use FFI\CData;

/**
 * A signing key and its certificate (`kuatia_signer`). Freed by {@see close()} (idempotent) or when the object is
 * destroyed; the library wipes the key. PHP keeps a signer alive while a {@see Service} holds it.
 */
final class Signer
{
    private ?CData $handle;

    private function __construct(CData $handle)
    {
        $this->handle = $handle;
    }

    /**
     * Loads a PKCS#12 (`.p12` / `.pfx`) key and certificate from its bytes. Throws {@see SignException}
     * (`P12_INVALID`, `P12_WRONG_PASSWORD`, `KEY_UNSUPPORTED`, ...); the password is in no message, and stack
     * traces redact it (#[\SensitiveParameter]).
     */
    public static function fromP12(string $p12, #[\SensitiveParameter] string $password): self
    {
        $ffi = Native::lib();
        $handle = $ffi->new('kuatia_signer*');
        Native::call(static fn (CData $err): int => $ffi->kuatia_signer_from_p12(
            $p12,
            strlen($p12),
            $password,
            strlen($password),
            \FFI::addr($handle),
            $err,
        ));
        return new self($handle);
    }

    /** Loads an unencrypted PEM private key (`PRIVATE KEY` or `RSA PRIVATE KEY`) and a PEM certificate. */
    public static function fromPem(#[\SensitiveParameter] string $keyPem, string $certPem): self
    {
        $ffi = Native::lib();
        $handle = $ffi->new('kuatia_signer*');
        Native::call(static fn (CData $err): int => $ffi->kuatia_signer_from_pem(
            $keyPem,
            strlen($keyPem),
            $certPem,
            strlen($certPem),
            \FFI::addr($handle),
            $err,
        ));
        return new self($handle);
    }

    /** TEST ONLY: the public sandbox key and self-signed certificate (RUC 44444401-7); SIFEN rejects it. */
    public static function sandbox(): self
    {
        $ffi = Native::lib();
        $handle = $ffi->new('kuatia_signer*');
        Native::call(static fn (CData $err): int => $ffi->kuatia_signer_sandbox(\FFI::addr($handle), $err));
        return new self($handle);
    }

    /** Signs the element whose `Id` attribute is `$id` (enveloped XMLDSig, RSA-SHA256, exclusive C14N). */
    public function sign(string $xml, string $id): string
    {
        return Kuatia::sign($xml, $id, $this);
    }

    /** True once {@see close()} ran. */
    public function isClosed(): bool
    {
        return $this->handle === null;
    }

    /** Frees the key (wiped by the library). Idempotent. */
    public function close(): void
    {
        $handle = $this->handle;
        $this->handle = null;
        if ($handle !== null) {
            Native::lib()->kuatia_signer_free($handle);
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * The live handle, for the calls of this package.
     *
     * @internal
     */
    public function handle(): CData
    {
        return $this->handle ?? throw new \LogicException('the signer is closed');
    }
}
