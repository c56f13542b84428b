<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\InvalidArgumentException;
use Kuatia\Kuatia;
use Kuatia\KuatiaException;
use Kuatia\Native;
use Kuatia\PanicException;
use Kuatia\Signer;
use Kuatia\Status;
use PHPUnit\Framework\TestCase;

/**
 * The adversarial table (tests/adversarial/*.json) replayed through the PHP binding.
 *
 * Every vector goes to the function that reaches its core entry point (request: validate, and up to 1 MiB also
 * totals and issue; validate: validate's report; xml: kudePdf; verify: verify's report; sifen_response:
 * sifenParseResponse; ruc: rucValidate/rucCheck; cdc: cdcParse; p12: Signer::fromP12) and must give the code (and
 * path) the Rust replay asserts, within a time bound, without a crash. The C boundary's two rules apply first
 * (tests/adversarial/README.md): an input longer than KUATIA_MAX_INPUT_LEN is TOO_LARGE, and bytes that are not
 * UTF-8 given to a text argument are INVALID_UTF8 (PHP strings carry bytes as they are, so these reach the library
 * unchanged). PHP has no NULL string: a null for a required argument is a TypeError from the parameter types
 * before any native call; optional ones (profile, verify's $at, qrParse's $csc) are NULL.
 */
final class AdversarialTest extends TestCase
{
    private const TIME_BOUND_S = 10.0; // generous: the slowest vector takes about a second
    private const SMALL = 1 << 20; // larger inputs (the 100 MB vectors) go through one function only
    private const RSS_BOUND_KB = 1024 * 1024; // peak RSS of the process after the table
    private const BYTES_TARGETS = ['sifen_response', 'p12']; // the only targets whose C argument is raw bytes

    private static ?Signer $signer = null;

    public static function setUpBeforeClass(): void
    {
        self::$signer = Signer::sandbox();
    }

    public static function tearDownAfterClass(): void
    {
        self::$signer?->close();
        self::$signer = null;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public static function vectors(): array
    {
        $out = [];
        foreach (glob(Cases::root() . '/tests/adversarial/*.json') ?: [] as $file) {
            foreach (Cases::decode((string) file_get_contents($file))['vectors'] as $v) {
                if (isset($out[$v['name']])) {
                    throw new \RuntimeException("duplicate vector {$v['name']}");
                }
                $out[$v['name']] = [$v];
            }
        }
        return $out;
    }

    public function testTheTableIsThereAndMatchesTheHeader(): void
    {
        self::assertGreaterThanOrEqual(100, count(self::vectors()));
        $header = (string) file_get_contents(Cases::root() . '/include/kuatia.h');
        self::assertMatchesRegularExpression('/#define KUATIA_MAX_INPUT_LEN \(\(64 \* 1024\) \* 1024\)/', $header);
        self::assertSame(64 * 1024 * 1024, Native::MAX_INPUT_LEN);
    }

    /**
     * @dataProvider vectors
     * @param array<string, mixed> $v
     */
    public function testVector(array $v): void
    {
        $data = self::input($v);
        [$wantOk, $wantCode, $wantPath] = self::expected($v, $data);
        $ran = 0;
        foreach (self::calls($v, $data) as $fn => $call) {
            $ran++;
            $start = microtime(true);
            $got = self::outcome($call);
            $elapsed = microtime(true) - $start;
            $name = "{$v['name']} via {$fn}";
            self::assertLessThan(self::TIME_BOUND_S, $elapsed, "{$name}: {$elapsed} s");
            if ($wantOk) {
                self::assertNull($got, "{$name}: expected ok, got " . json_encode($got));
                continue;
            }
            self::assertNotNull($got, "{$name}: accepted, expected {$wantCode}");
            [$code, $path, $message, $status] = $got;
            self::assertSame($wantCode, $code, "{$name}: expected {$wantCode}, got {$code} at '{$path}': {$message}");
            if ($wantPath !== null) {
                self::assertSame($wantPath, $path, "{$name}: path");
            }
            self::assertLessThanOrEqual(4096, strlen($message), "{$name}: message of " . strlen($message) . ' bytes');
            if ($status !== null) {
                $want = match (true) {
                    $code === 'TOO_LARGE' => Status::TooLarge,
                    $code === 'INVALID_UTF8' => Status::InvalidUtf8,
                    str_starts_with($code, 'P12_') => Status::SignError,
                    default => Status::InvalidInput,
                };
                self::assertSame($want, $status, "{$name}: status for {$code}");
            }
        }
        self::assertGreaterThanOrEqual(1, $ran, "{$v['name']}: no function for target {$v['target']}");
    }

    public function testNullForRequiredArgumentsIsATypeErrorAndOptionalOnesAreNull(): void
    {
        $signer = self::$signer ?? throw new \LogicException('no signer');
        $p12 = (string) file_get_contents(Cases::cert('sandbox.p12'));
        foreach ([
            static fn () => Kuatia::validate(null), // @phpstan-ignore-line
            static fn () => Kuatia::totals(null), // @phpstan-ignore-line
            static fn () => Kuatia::issue(null, $signer, 1), // @phpstan-ignore-line
            static fn () => Kuatia::issue([], null, 1), // @phpstan-ignore-line
            static fn () => Kuatia::kudePdf(null), // @phpstan-ignore-line
            static fn () => Kuatia::verify(null), // @phpstan-ignore-line
            static fn () => Kuatia::sifenParseResponse(null), // @phpstan-ignore-line
            static fn () => Kuatia::rucCheck(null), // @phpstan-ignore-line
            static fn () => Kuatia::cdcParse(null), // @phpstan-ignore-line
            static fn () => Signer::fromP12($p12, null), // @phpstan-ignore-line
            static fn () => Signer::fromP12(null, 'x'), // @phpstan-ignore-line
        ] as $i => $call) {
            try {
                $call();
                self::fail("call {$i} accepted null");
            } catch (\TypeError) {
                self::addToAssertionCount(1);
            }
        }
        // The optional arguments may be null: the sandbox profile, and no date check in verify.
        self::assertSame('VALIDATION_ERROR.REQUIRED', Kuatia::validate('{}', null, Cases::NOW)->errors[0]->code);
        self::assertFalse(Kuatia::verify('<rDE/>', null)->valid);
        // A NULL required pointer still reaches the library as INVALID_ARGUMENT naming the C argument, the same
        // answer C gets: through the binding's own declarations, as Java does through JNA.
        $ffi = Native::lib();
        try {
            Native::bytes(static fn ($out, $err): int => $ffi->kuatia_cdc_parse(null, 0, $out, $err));
            self::fail('NULL accepted');
        } catch (InvalidArgumentException $e) {
            self::assertSame(['INVALID_ARGUMENT', 'cdc', Status::InvalidArgument], [$e->code(), $e->path(), $e->status()]);
        }
    }

    /** Runs last in this class (PHPUnit keeps declaration order): the 100 MB inputs were built and refused. */
    public function testPeakRssIsBounded(): void
    {
        $peak = getrusage()['ru_maxrss']; // KiB on Linux
        self::assertLessThan(self::RSS_BOUND_KB, $peak, 'peak RSS ' . intdiv($peak, 1024) . ' MiB');
    }

    /** @param array<string, mixed> $v */
    private static function input(array $v): string
    {
        $in = $v['input'];
        if (isset($in['text'])) {
            return $in['text'];
        }
        if (isset($in['base64'])) {
            return (string) base64_decode($in['base64'], true);
        }
        $r = $in['repeat'];
        if (str_contains($r['unit'], '{i}')) { // numbered copies: "{i}" is the copy's index
            $parts = [];
            for ($i = 0; $i < $r['count']; $i++) {
                $parts[] = str_replace('{i}', (string) $i, $r['unit']);
            }
            return $r['prefix'] . implode('', $parts) . $r['suffix'];
        }
        return $r['prefix'] . str_repeat($r['unit'], $r['count']) . $r['suffix'];
    }

    /**
     * (ok, code, path) for this face: the table's, unless a rule of the C boundary answers first.
     *
     * @param array<string, mixed> $v
     * @return array{0: bool, 1: ?string, 2: ?string}
     */
    private static function expected(array $v, string $data): array
    {
        if (strlen($data) > Native::MAX_INPUT_LEN) {
            return [false, 'TOO_LARGE', null];
        }
        if (!in_array($v['target'], self::BYTES_TARGETS, true) && !mb_check_encoding($data, 'UTF-8')) {
            return [false, 'INVALID_UTF8', null];
        }
        $e = $v['expect'];
        return [(bool) ($e['ok'] ?? false), $e['code'] ?? null, $e['path'] ?? null];
    }

    /**
     * (function name => call) for one vector; a call returns null when accepted, or [code, path, message, null]
     * for a rejection reported as data (a validation or verification report).
     *
     * @param array<string, mixed> $v
     * @return iterable<string, callable(): ?array>
     */
    private static function calls(array $v, string $data): iterable
    {
        $t = $v['target'];
        $small = strlen($data) <= self::SMALL;
        $signer = self::$signer ?? throw new \LogicException('no signer');
        if ($t === 'request' || $t === 'validate') {
            // Findings are the report; only the boundary (size, UTF-8) throws.
            yield 'validate' => static function () use ($data): ?array {
                $r = Kuatia::validate($data, null, Cases::NOW);
                return $r->ok ? null : [$r->errors[0]->code, $r->errors[0]->path, $r->errors[0]->message, null];
            };
        }
        if ($t === 'request' && $small) {
            yield 'totals' => static fn (): ?array => self::none(Kuatia::totals($data));
            yield 'issue' => static fn (): ?array => self::none(Kuatia::issue($data, $signer, 1, 123456789, now: Cases::NOW));
        }
        if ($t === 'xml') {
            yield 'kudePdf' => static fn (): ?array => self::none(Kuatia::kudePdf($data));
        }
        if ($t === 'verify') {
            yield 'verify' => static function () use ($data): ?array {
                $r = Kuatia::verify($data);
                $e = $r->report['error'];
                self::assertSame($r->valid, $e === null);
                return $r->valid ? null : [$e['code'], $e['path'], $e['message'], null];
            };
        }
        if ($t === 'sifen_response') {
            yield 'sifenParseResponse' => static fn (): ?array => self::none(Kuatia::sifenParseResponse($data));
        }
        if ($t === 'ruc') {
            // rucCheck answers a bool; rucValidate throws the library's code for the same C call.
            yield 'rucValidate' => static function () use ($data): ?array {
                $got = self::outcome(static fn (): ?array => self::none(Kuatia::rucValidate($data)));
                if ($got === null || $got[0] !== 'INVALID_UTF8') {
                    self::assertSame($got === null, Kuatia::rucCheck($data));
                }
                return $got;
            };
        }
        if ($t === 'cdc') {
            yield 'cdcParse' => static fn (): ?array => self::none(Kuatia::cdcParse($data));
        }
        if ($t === 'p12') {
            yield 'Signer::fromP12' => static fn (): ?array => self::none(Signer::fromP12($data, $v['password'])->close());
        }
    }

    /**
     * The KuatiaException `$call` throws as [code, path, message, status]; what it returns otherwise.
     *
     * @param callable(): ?array $call
     */
    private static function outcome(callable $call): ?array
    {
        try {
            $got = $call();
        } catch (KuatiaException $e) {
            self::assertNotInstanceOf(PanicException::class, $e, 'PANIC: ' . $e->getMessage());
            return [$e->code(), $e->path(), $e->message(), $e->status()];
        }
        return $got;
    }

    /** A call's result when only whether it threw matters. */
    private static function none(mixed $result): ?array
    {
        return null;
    }
}
