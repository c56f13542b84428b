<?php

declare(strict_types=1);

namespace Kuatia\Tests;

/** The cross-face conformance cases (tests/fixtures/cases/*.json) that Rust, C, WASM and every binding replay. */
final class Cases
{
    public const NOW = '2025-03-10T10:11:00';
    public const SANDBOX_CSC = 'ABCD0000000000000000000000000000';

    public static function root(): string
    {
        return dirname(__DIR__, 3);
    }

    public static function cert(string $name): string
    {
        return self::root() . '/tests/fixtures/certs/' . $name;
    }

    /**
     * Every case, keyed by its file stem. Decoded as amounts must be: integers too big for PHP stay strings, and
     * a decimal number in a request would fail the binding's float check instead of silently losing digits.
     *
     * @return array<string, array<string, mixed>>
     */
    public static function all(): array
    {
        $out = [];
        foreach (glob(self::root() . '/tests/fixtures/cases/*.json') ?: [] as $file) {
            $out[basename($file, '.json')] = self::decode((string) file_get_contents($file));
        }
        ksort($out);
        return $out;
    }

    /** @return array<string, mixed> */
    public static function get(string $name): array
    {
        return self::all()[$name] ?? throw new \RuntimeException("no case {$name}");
    }

    public static function decode(string $json): mixed
    {
        return json_decode($json, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
    }
}
