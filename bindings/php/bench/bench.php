<?php

/**
 * `issue` of the same invoice through PHP and through Rust (and through `kuatia issue` as a subprocess).
 *
 * The invoice is the conformance case fe_spec_example (sandbox signer, number 1, security code 123456789, its
 * `now`). The machine is shared, so the two sides alternate in blocks: the Rust loop (ffi/examples/issue_loop.rs,
 * the core alone: parse, numbering key, validate, number, build, sign, QR) runs ROUNDS calls in a subprocess that
 * times each call itself, then PHP runs ROUNDS calls of Kuatia::issue with the request as an array; BLOCKS times.
 * The overhead is the median over the blocks of PHP's median over Rust's median in the same block (paired, so load
 * that drifts between blocks hits both sides alike; CPU-time counters are no better in a VM, where stolen time
 * counts as run time); the fastest call of each side is reported too. It also times
 * the request as JSON text, the bare FFI call with pre-encoded arguments (what the binding adds on top of the C
 * ABI), and `kuatia issue` as a subprocess (process start, file I/O). Writes target/php-bench.json.
 *
 * Needs the release build: cargo build --release -p kuatia-ffi --example issue_loop && cargo build --release
 * -p kuatia-cli (scripts/bench.sh does both). Usage: php bindings/php/bench/bench.php [ROUNDS [BLOCKS]]
 */

declare(strict_types=1);

use Kuatia\Kuatia;
use Kuatia\Native;
use Kuatia\Signer;

$root = dirname(__DIR__, 3);
$release = "{$root}/target/release";
if (getenv('KUATIA_LIB') === false) {
    putenv("KUATIA_LIB={$release}/libkuatia.so");
}
spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Kuatia\\')) {
        require dirname(__DIR__) . '/src/' . substr($class, 7) . '.php';
    }
});

$rounds = (int) ($argv[1] ?? 200);
$blocks = (int) ($argv[2] ?? 16);
$loop = "{$release}/examples/issue_loop";
$cli = "{$release}/kuatia";
foreach ([$loop, $cli, (string) getenv('KUATIA_LIB')] as $needed) {
    if (!is_file($needed)) {
        fwrite(STDERR, "bench.php: {$needed} is missing; build the release first (see the header of this file)\n");
        exit(2);
    }
}

$case = json_decode((string) file_get_contents("{$root}/tests/fixtures/cases/fe_spec_example.json"), true, 512,
    JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
$request = $case['request'];
$now = $case['context']['now'];
$text = json_encode($request, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
$file = tempnam(sys_get_temp_dir(), 'kuatia-bench-');
file_put_contents($file, $text);
$signer = Signer::sandbox();

// The same document on both sides (and the one Rust recorded).
$issued = Kuatia::issue($request, $signer, 1, 123456789, now: $now);
if (hash('sha256', $issued->xml) !== $case['expected']['xml_sha256']) {
    fwrite(STDERR, "bench.php: PHP issued a different document than the conformance case records\n");
    exit(1);
}

/** @return list<int> nanoseconds per call */
function rust_block(string $loop, string $file, string $now, int $rounds, string $cdc): array
{
    $out = shell_exec(escapeshellarg($loop) . ' ' . escapeshellarg($file) . ' ' . escapeshellarg($now) . " {$rounds}");
    $lines = explode("\n", trim((string) $out));
    if (count($lines) !== 2 || $lines[0] !== $cdc) {
        fwrite(STDERR, "bench.php: issue_loop failed or issued another CDC: {$out}\n");
        exit(1);
    }
    return array_map('intval', explode(' ', $lines[1]));
}

/** @return list<int> nanoseconds per call */
function php_block(callable $call, int $rounds): array
{
    $times = [];
    for ($i = 0; $i < $rounds; $i++) {
        $t = hrtime(true);
        $call();
        $times[] = hrtime(true) - $t;
    }
    return $times;
}

function median(array $xs): float
{
    sort($xs);
    $n = count($xs);
    return $n % 2 ? (float) $xs[intdiv($n, 2)] : ($xs[$n / 2 - 1] + $xs[$n / 2]) / 2;
}

$ffi = Native::lib();
$handle = $signer->handle();
$raw = static function () use ($ffi, $text, $now, $handle): void {
    $xml = $ffi->new('kuatia_bytes');
    $json = $ffi->new('kuatia_bytes');
    $status = $ffi->kuatia_invoice_issue($text, strlen($text), null, 0, $handle, $now, strlen($now), 1, 123456789,
        FFI::addr($xml), FFI::addr($json), null);
    if ($status !== 0) {
        throw new RuntimeException("status {$status}");
    }
    $ffi->kuatia_bytes_free(FFI::addr($xml));
    $ffi->kuatia_bytes_free(FFI::addr($json));
};
$sides = [
    'php' => static fn () => Kuatia::issue($request, $signer, 1, 123456789, now: $now),
    'php_json_text' => static fn () => Kuatia::issue($text, $signer, 1, 123456789, now: $now),
    'ffi_raw' => $raw,
];
$load = sys_getloadavg()[0];
foreach ($sides as $call) {
    php_block($call, 50); // warm-up
}
$t = ['rust' => []] + array_fill_keys(array_keys($sides), []);
$ratios = []; // per block: PHP's median over Rust's median of the same block (load drifts hit both alike)
for ($b = 0; $b < $blocks; $b++) {
    $rust = rust_block($loop, $file, $now, $rounds, $case['expected']['cdc']);
    array_push($t['rust'], ...$rust);
    foreach ($sides as $name => $call) {
        $times = php_block($call, $rounds);
        array_push($t[$name], ...$times);
        if ($name === 'php') {
            $ratios[] = median($times) / median($rust);
        }
    }
}

// `kuatia issue` as a subprocess: a process per invoice (start, read, issue, write the XML).
$out = sys_get_temp_dir() . '/kuatia-bench-out-' . getmypid();
$cliTimes = [];
for ($i = 0; $i < 30; $i++) {
    $start = hrtime(true);
    exec(escapeshellarg($cli) . ' issue ' . escapeshellarg($file) . ' --out ' . escapeshellarg($out) . ' --at '
        . escapeshellarg($now) . ' >/dev/null 2>&1', $ignored, $rc);
    $cliTimes[] = hrtime(true) - $start;
    if ($rc !== 0) {
        fwrite(STDERR, "bench.php: kuatia issue failed (exit {$rc})\n");
        exit(1);
    }
}
array_map('unlink', glob("{$out}/*") ?: []);
@rmdir($out);
unlink($file);
$signer->close();

$med = array_map('median', $t);
$min = array_map(static fn (array $xs): int => min($xs), $t);
$overhead = (median($ratios) - 1) * 100;
$minOverhead = ($min['php'] / $min['rust'] - 1) * 100;
$report = [
    'invoice' => 'tests/fixtures/cases/fe_spec_example.json',
    'library' => Kuatia::libraryPath(),
    'php' => PHP_VERSION,
    'rounds' => $rounds * $blocks,
    'load_before' => $load,
    'load_after' => sys_getloadavg()[0],
    'median_ns' => $med,
    'min_ns' => $min,
    'php_overhead_pct' => round($overhead, 2), // median over the blocks of PHP's median / Rust's median
    'php_overhead_min_pct' => round($minOverhead, 2), // fastest call against fastest call
    'php_overhead_per_block_pct' => array_map(static fn (float $r): float => round(($r - 1) * 100, 1), $ratios),
    'cli_subprocess_median_ns' => median($cliTimes),
    'target' => 'issue through PHP within 5 % of Rust',
    'ok' => $overhead <= 5.0,
];
@mkdir("{$root}/target", 0777, true);
file_put_contents("{$root}/target/php-bench.json", json_encode($report, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");

$us = static fn (float $ns): string => sprintf('%8.1f µs', $ns / 1000);
printf("issue, %s, %d calls a side in %d alternating blocks (load %.2f → %.2f)\n", $report['invoice'],
    $rounds * $blocks, $blocks, $report['load_before'], $report['load_after']);
printf("  Rust core (issue_loop)           median %s  min %s\n", $us($med['rust']), $us($min['rust']));
printf("  PHP Kuatia::issue (array)        median %s  min %s  %+.1f %%\n", $us($med['php']), $us($min['php']),
    ($med['php'] / $med['rust'] - 1) * 100);
printf("  PHP Kuatia::issue (JSON text)    median %s  min %s  %+.1f %%\n", $us($med['php_json_text']),
    $us($min['php_json_text']), ($med['php_json_text'] / $med['rust'] - 1) * 100);
printf("  PHP bare FFI call (C ABI)        median %s  min %s  %+.1f %%\n", $us($med['ffi_raw']),
    $us($min['ffi_raw']), ($med['ffi_raw'] / $med['rust'] - 1) * 100);
printf("  kuatia issue (subprocess)        median %8.2f ms (%.1f × the in-process PHP call)\n",
    median($cliTimes) / 1e6, median($cliTimes) / $med['php']);
printf("  PHP over Rust, block by block: %s %%\n", implode(' ', array_map(
    static fn (float $x): string => sprintf('%+.1f', $x), $report['php_overhead_per_block_pct'])));
printf("%s %s: %+.1f %% (median of the blocks; fastest calls %+.1f %%)\nwritten: target/php-bench.json\n",
    $report['ok'] ? 'PASS' : 'MISS', $report['target'], $overhead, $minOverhead);
