<?php

declare(strict_types=1);

namespace Kuatia;

use FFI;
use FFI\CData;

/**
 * The C library: where it is found, its declarations, and the helpers every wrapper uses (status → exception,
 * owned buffers → PHP strings, JSON in and out). Internal: the public API is {@see Kuatia}, {@see Signer} and
 * {@see Service}.
 *
 * @internal
 */
final class Native
{
    /**
     * The declarations of include/kuatia.h as FFI::cdef reads them, generated from include/kuatia.abi.json into
     * {@see Abi} (tools/abigen.py; scripts/ffi-check.sh fails when they drift from the header).
     */
    public const CDEF = Abi::CDEF;

    /** KUATIA_MAX_INPUT_LEN: inputs longer than this are refused unread with TOO_LARGE. */
    public const MAX_INPUT_LEN = Abi::MAX_INPUT_LEN;

    /** KUATIA_SEED_LEN: bytes of fresh CSPRNG output passed with each service call. */
    public const SEED_LEN = Abi::SEED_LEN;

    private static ?FFI $ffi = null;
    private static string $path = '';
    /** The language messages are read in ({@see Kuatia::setLanguage()}); a tag the library parses. */
    public static string $language = 'es';

    /** The loaded library (loaded on first use). */
    public static function lib(): FFI
    {
        return self::$ffi ??= self::load();
    }

    /** The path (or name) libkuatia was loaded from. */
    public static function path(): string
    {
        self::lib();
        return self::$path;
    }

    /**
     * Where the library is looked for, in order: $KUATIA_LIB, the copy installed in this package (lib/), the
     * system's dynamic loader (a libkuatia installed in /usr/local/lib, LD_LIBRARY_PATH, ...), then the
     * checkout's target/release and target/debug.
     *
     * @return list<string>
     */
    public static function candidates(): array
    {
        $name = match (PHP_OS_FAMILY) {
            'Darwin' => 'libkuatia.dylib',
            'Windows' => 'kuatia.dll',
            default => 'libkuatia.so',
        };
        $found = [];
        $env = getenv('KUATIA_LIB');
        if (is_string($env) && $env !== '') {
            $found[] = $env;
        }
        $package = dirname(__DIR__);
        $found[] = $package . '/lib/' . $name;
        $found[] = $name;
        $repo = dirname($package, 2); // bindings/php -> the repository root
        foreach (['release', 'debug'] as $profile) {
            $found[] = $repo . '/target/' . $profile . '/' . $name;
        }
        return $found;
    }

    private static function load(): FFI
    {
        if (!extension_loaded('ffi')) {
            throw new \RuntimeException('kuatia needs the PHP FFI extension (ffi.enable=true, or preload for the CLI)');
        }
        $env = getenv('KUATIA_LIB');
        if (is_string($env) && $env !== '' && !is_file($env)) {
            // An explicit choice that does not exist is a mistake, not a reason to silently use another copy.
            throw new \RuntimeException("KUATIA_LIB={$env} does not exist");
        }
        $tried = [];
        foreach (self::candidates() as $candidate) {
            $byName = !str_contains($candidate, '/');
            if (!$byName && !is_file($candidate)) {
                $tried[] = $candidate;
                continue;
            }
            try {
                $ffi = FFI::cdef(self::CDEF, $candidate);
            } catch (\FFI\Exception $e) {
                if ($byName) {
                    $tried[] = $candidate . ' (dynamic loader)';
                    continue;
                }
                throw new \RuntimeException("cannot load {$candidate}: {$e->getMessage()}", 0, $e);
            }
            self::$path = $byName ? $candidate : (realpath($candidate) ?: $candidate);
            return $ffi;
        }
        throw new \RuntimeException('libkuatia not found (tried ' . implode(', ', $tried) . '); build it with '
            . '`cargo build -p kuatia-ffi --release` or set KUATIA_LIB to its path');
    }

    /** Length of an optional input (NULL is 0). */
    public static function len(?string $s): int
    {
        return $s === null ? 0 : strlen($s);
    }

    /**
     * Calls `$fn($err)` (a C call whose last argument is `kuatia_error **`) and throws on failure.
     *
     * @param callable(CData): int $fn
     */
    public static function call(callable $fn): void
    {
        $err = self::lib()->new('kuatia_error*');
        $status = $fn(FFI::addr($err));
        if ($status !== 0) {
            self::raise($status, $err);
        }
    }

    /**
     * Calls `$fn($out, $err)` (a C call writing one `kuatia_bytes`) and returns the buffer's content.
     *
     * @param callable(CData, CData): int $fn
     */
    public static function bytes(callable $fn): string
    {
        $ffi = self::lib();
        $out = $ffi->new('kuatia_bytes');
        $err = $ffi->new('kuatia_error*');
        $status = $fn(FFI::addr($out), FFI::addr($err));
        if ($status !== 0) {
            self::raise($status, $err);
        }
        return self::take($out);
    }

    /** Copies an owned buffer into a PHP string and frees it. */
    public static function take(CData $buf): string
    {
        try {
            return FFI::isNull($buf->ptr) ? '' : FFI::string($buf->ptr, $buf->len);
        } finally {
            self::lib()->kuatia_bytes_free(FFI::addr($buf));
        }
    }

    /** Turns a failed call's status and `kuatia_error` into the exception of that status, freeing the error. */
    public static function raise(int $status, CData $err): never
    {
        $ffi = self::lib();
        if (FFI::isNull($err)) {
            throw KuatiaException::of($status, 'UNKNOWN', "kuatia call failed with status {$status}", '', []);
        }
        try {
            // The error's own status is authoritative (the same number the call returned).
            $status = $ffi->kuatia_error_status($err);
            $code = (string) $ffi->kuatia_error_code($err);
            $message = (string) $ffi->kuatia_error_message_in($err, self::$language);
            $path = (string) $ffi->kuatia_error_path($err);
            $rule = (string) $ffi->kuatia_error_rule($err);
            $json = (string) $ffi->kuatia_error_json_in($err, self::$language);
        } finally {
            $ffi->kuatia_error_free($err);
        }
        $findings = [];
        foreach (Json::decode($json === '' ? '[]' : $json) as $f) {
            $findings[] = Finding::fromArray($f);
        }
        throw KuatiaException::of($status, $code, $message, $path, $findings, $rule === '' ? 'unclassified' : $rule);
    }

    /** 32 fresh bytes from the OS CSPRNG, as each service call needs. */
    public static function seed(): string
    {
        return random_bytes(self::SEED_LEN);
    }

    /** Checks an integer argument that goes to a C unsigned type of `$bits` bits (FFI would truncate silently). */
    public static function unsigned(int $value, int $bits, string $name): int
    {
        $max = $bits >= 63 ? PHP_INT_MAX : (1 << $bits) - 1;
        if ($value < 0 || $value > $max) {
            throw new \ValueError("{$name} must be in 0..{$max}, got {$value}");
        }
        return $value;
    }
}
