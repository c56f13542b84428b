<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * JSON in and out without floats: amounts travel as decimal strings (or integers), never as PHP floats, which
 * cannot hold 0.1 or a 20-digit guaraní amount exactly.
 *
 * @internal
 */
final class Json
{
    private const ENCODE = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION
        | JSON_THROW_ON_ERROR;

    /**
     * A JSON argument of the C API: a string is taken as JSON text already (passed byte for byte; the library
     * checks UTF-8 and syntax); an array or object is encoded. Floats are refused with a \TypeError naming their
     * path: write amounts as strings ("1.5") or integers. `$arg` is the C argument's name, used in errors.
     *
     * @param array<mixed>|object|string|null $value
     */
    public static function encode(array|object|string|null $value, string $arg): ?string
    {
        if ($value === null || is_string($value)) {
            return $value;
        }
        try {
            $json = json_encode($value, self::ENCODE);
        } catch (\JsonException $e) {
            if ($e->getCode() === JSON_ERROR_UTF8) {
                // The same answer the library gives for bytes that are not UTF-8 in a text argument.
                throw new InvalidUtf8Exception(Status::InvalidUtf8, 'INVALID_UTF8',
                    'a string in the array is not valid UTF-8', $arg, []);
            }
            self::walk($value, '', $arg, 0); // INF and NAN are floats: refused with their path
            throw new \ValueError("{$arg}: cannot be written as JSON: {$e->getMessage()}", 0, $e);
        }
        if (self::mayHoldFloats($value)) {
            self::walk($value, '', $arg, 0); // throws a \TypeError naming the float's path
        }
        return $json;
    }

    /**
     * Decodes a JSON result of the library into arrays; integers too large for PHP stay strings.
     */
    public static function decode(string $json): mixed
    {
        return json_decode($json, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
    }

    /**
     * A cheap test that is never wrong when it says no: serialize() writes every float as `d:` and every object as
     * `O:`/`C:` (whose jsonSerialize() may return floats). A string that happens to contain those letters only costs
     * the exact walk.
     *
     * @param array<mixed>|object $value
     */
    private static function mayHoldFloats(array|object $value): bool
    {
        try {
            $s = serialize($value);
        } catch (\Throwable) {
            return true; // closures and other unserializable objects: walk
        }
        return str_contains($s, 'd:') || str_contains($s, 'O:') || str_contains($s, 'C:');
    }

    private static function walk(mixed $value, string $path, string $arg, int $depth): void
    {
        if (is_float($value)) {
            $shown = var_export($value, true);
            throw new \TypeError("{$arg}: " . ($path === '' ? 'the value' : $path) . " is a float ({$shown}); "
                . 'kuatia takes amounts as decimal strings ("1.5") or integers, never floats (they are inexact)');
        }
        if ($depth > 512) {
            return; // json_encode reports the depth itself
        }
        if ($value instanceof \JsonSerializable) {
            self::walk($value->jsonSerialize(), $path, $arg, $depth + 1);
            return;
        }
        if (is_object($value)) {
            $value = get_object_vars($value);
        }
        if (!is_array($value)) {
            return;
        }
        $list = array_is_list($value);
        foreach ($value as $k => $v) {
            self::walk($v, $list ? "{$path}[{$k}]" : ($path === '' ? (string) $k : "{$path}.{$k}"), $arg, $depth + 1);
        }
    }
}
