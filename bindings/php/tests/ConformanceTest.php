<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\Finding;
use Kuatia\InvalidInputException;
use Kuatia\Kuatia;
use Kuatia\Signer;
use Kuatia\Status;
use PHPUnit\Framework\TestCase;

/**
 * Replays every conformance case through the PHP binding; the results must equal what Rust recorded in the case
 * file (each finding's code, path, rule, params and message in Spanish and in English, totals, and with the sandbox
 * signer the same CDC, number, QR and SHA-256 of the signed XML). Every rule's sample of tests/fixtures/messages.json
 * renders through Kuatia::localize() as the file says. Nothing expected is written here: it all comes from
 * tests/fixtures.
 */
final class ConformanceTest extends TestCase
{
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
    public static function cases(): array
    {
        return array_map(static fn (array $c): array => [$c], Cases::all());
    }

    public function testTheCasesAreThere(): void
    {
        // A silent empty glob would make every data-driven test vanish.
        $all = Cases::all();
        $valid = count(array_filter($all, static fn (array $c): bool => $c['expected']['ok']));
        self::assertGreaterThanOrEqual(10, $valid);
        self::assertGreaterThanOrEqual(2, count($all) - $valid);
    }

    /**
     * @dataProvider cases
     * @param array<string, mixed> $case
     */
    public function testCase(array $case): void
    {
        $ctx = $case['context'];
        $exp = $case['expected'];
        $signer = self::$signer ?? throw new \LogicException('no signer');
        $report = Kuatia::validate($case['request'], now: $ctx['now']);
        self::assertSame($exp['ok'], $report->ok);
        // JSON text gives the same report as the array.
        $text = json_encode($case['request'], JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        self::assertEquals($report, Kuatia::validate($text, null, $ctx['now']));

        if (!$exp['ok']) {
            try {
                foreach (['es', 'en'] as $lang) {
                    Kuatia::setLanguage($lang);
                    $expected = self::expectedIn($exp, $lang);
                    self::assertEquals($expected, Kuatia::validate($case['request'], now: $ctx['now'])->errors, $lang);
                    try {
                        Kuatia::issue($case['request'], $signer, $ctx['numero'], $ctx['codigo_seguridad'],
                            now: $ctx['now']);
                        self::fail('issue accepted an invalid request');
                    } catch (InvalidInputException $e) {
                        self::assertSame(Status::InvalidInput, $e->status());
                        self::assertSame(Status::InvalidInput->value, $e->getCode());
                        self::assertEquals($expected, $e->findings(), $lang);
                        $first = $expected[0];
                        self::assertSame([$first->code, $first->path, $first->rule, $first->message],
                            [$e->code(), $e->path(), $e->rule(), $e->message()]);
                        self::assertEquals($first->params, $e->params()); // the rule's order, not the file's
                    }
                }
            } finally {
                Kuatia::setLanguage('es');
            }
            return;
        }

        self::assertSame([], $report->errors);
        // As the Rust replay: the recorded totals are a subset of the computed ones (null for a remisión).
        $totales = Kuatia::totals($case['request'])['totales'];
        if ($exp['totales'] === null) {
            self::assertNull($totales);
        } else {
            foreach ($exp['totales'] as $key => $value) {
                self::assertSame($value, $totales[$key], $key); // strings on both sides: exact decimals
            }
        }

        $issued = Kuatia::issue($case['request'], $signer, $ctx['numero'], $ctx['codigo_seguridad'], now: $ctx['now']);
        self::assertSame($exp['cdc'], $issued->cdc);
        self::assertSame($exp['numero'], $issued->numero);
        self::assertSame($exp['qr'], $issued->qr);
        self::assertSame($exp['xml_sha256'], hash('sha256', $issued->xml));
        self::assertSame($ctx['now'], $issued->fechaEmision);
        self::assertStringContainsString("<DigestValue>{$issued->digestValue}</DigestValue>", $issued->xml);

        // Downstream: the numbering key names the stamp in the XML, the signature verifies, the QR hash checks with
        // the sandbox CSC, the CDC's own fields parse back.
        $key = Kuatia::numberingKey($case['request'], now: $ctx['now']);
        self::assertStringContainsString("<dNumTim>{$key['timbrado']}</dNumTim>", $issued->xml);
        $v = Kuatia::verify($issued->xml, $ctx['now']);
        self::assertTrue($v->valid);
        self::assertSame($exp['cdc'], $v->report['reference_id']);
        self::assertTrue(Kuatia::qrParse($issued->qr, Cases::SANDBOX_CSC)['hash_ok']);
        $parts = Kuatia::cdcParse($issued->cdc);
        self::assertSame($exp['cdc'], $parts['cdc']);
        self::assertStringContainsString(sprintf('<dCodSeg>%09d</dCodSeg>', $parts['codigo_seguridad']), $issued->xml);

        // The unsigned preview carries the same CDC.
        $preview = Kuatia::previewXml($case['request'], $ctx['numero'], $ctx['codigo_seguridad'], now: $ctx['now']);
        self::assertStringContainsString("Id=\"{$exp['cdc']}\"", $preview);
        self::assertStringNotContainsString('<Signature', $preview);
    }

    public function testEveryRuleRendersThroughLocalize(): void
    {
        $samples = Cases::decode((string) file_get_contents(Cases::root() . '/tests/fixtures/messages.json'));
        self::assertIsArray($samples);
        self::assertGreaterThanOrEqual(400, count($samples));
        $findings = array_map(static fn (array $m): array => ['code' => 'X', 'path' => '', 'message' => '',
            'rule' => $m['rule'], 'params' => (object) $m['params']], $samples);
        foreach (['es', 'en'] as $lang) {
            $got = Kuatia::localize($findings, $lang);
            self::assertIsArray($got);
            self::assertSame(array_column($samples, $lang), array_column($got, 'message'), $lang);
        }
    }

    /**
     * The findings a refused case expects, with the message in `$lang`.
     *
     * @param array<string, mixed> $exp
     * @return list<Finding>
     */
    private static function expectedIn(array $exp, string $lang): array
    {
        return array_map(static fn (array $e): Finding => new Finding($e['code'], $e['path'], $e['message'][$lang],
            $e['rule'], $e['params']), $exp['errors']);
    }
}
