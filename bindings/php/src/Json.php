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
        self::refuseFloats($value, $arg);
        try {
            return json_encode($value, self::ENCODE);
        } catch (\JsonException $e) {
            if ($e->getCode() === JSON_ERROR_UTF8) {
                // The same answer the library gives for bytes that are not UTF-8 in a text argument.
                throw new InvalidUtf8Exception(Status::InvalidUtf8, 'INVALID_UTF8',
                    'a string in the array is not valid UTF-8', $arg, []);
            }
            throw new \ValueError("{$arg}: cannot be written as JSON: {$e->getMessage()}", 0, $e);
        }
    }

    /**
     * Decodes a JSON result of the library into arrays; integers too large for PHP stay strings.
     */
    public static function decode(string $json): mixed
    {
        return json_decode($json, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
    }

    /** @param array<mixed>|object $value */
    private static function refuseFloats(array|object $value, string $arg): void
    {
        if (is_array($value)) {
            // Fast path: one C-level walk over the leaves; the exact path is only looked for when needed.
            $suspect = false;
            array_walk_recursive($value, static function ($leaf) use (&$suspect): void {
                if (is_float($leaf) || is_object($leaf)) {
                    $suspect = true;
                }
            });
            if (!$suspect) {
                return;
            }
        }
        self::walk($value, '', $arg, 0);
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
