<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\InvalidInputException;
use Kuatia\InvalidUtf8Exception;
use Kuatia\KudeFormat;
use Kuatia\Kuatia;
use Kuatia\KuatiaException;
use Kuatia\SignException;
use Kuatia\Signer;
use Kuatia\Status;
use PHPUnit\Framework\TestCase;

/** The PHP API itself: identifiers, QR, validation arguments, types, signing, KuDE, SIFEN, errors, life cycles. */
final class ApiTest extends TestCase
{
    private const NOW = Cases::NOW;
    private const GOLDEN_CDC = '01444444017001001000000122025031011234567890'; // emitted by the sandbox RUC
    private const FOREIGN_CDC = '01800695631001001000000122022081411234567891'; // emitted by 80069563-1

    /** @return array<string, mixed> */
    private static function spec(): array
    {
        return Cases::get('fe_spec_example');
    }

    public function testVersionAndStatusNumbersMatchTheHeader(): void
    {
        $header = (string) file_get_contents(Cases::root() . '/include/kuatia.h');
        self::assertStringContainsString('#define KUATIA_VERSION "' . Kuatia::version() . '"', $header);
        preg_match_all('/^\s+KUATIA_STATUS_(\w+) = (\d+),/m', $header, $m, PREG_SET_ORDER);
        $declared = [];
        foreach ($m as [, $name, $n]) {
            $declared[$name] = (int) $n;
        }
        $ours = [];
        foreach (Status::cases() as $s) {
            $ours[$s->cName()] = $s->value;
        }
        self::assertSame($declared, $ours);
        preg_match('/#define KUATIA_SEED_LEN (\d+)/', $header, $seed);
        self::assertSame((int) $seed[1], \Kuatia\Native::SEED_LEN);
        self::assertMatchesRegularExpression('#libkuatia\.so$#', Kuatia::libraryPath());
    }

    public function testCodesAreTheRegistry(): void
    {
        // The same list as tests/fixtures/codes.json, which core/tests/registry.rs checks against the Rust registry.
        $want = json_decode((string) file_get_contents(Cases::root() . '/tests/fixtures/codes.json'), true);
        self::assertSame($want, Kuatia::codes());
        self::assertSame('INVALID_RUC', Kuatia::codes()[0]['code']);
    }

    public function testRuc(): void
    {
        self::assertSame(1, Kuatia::rucDv('80069563')); // SIFEN.md §1
        self::assertSame(7, Kuatia::rucDv('44444401'));
        self::assertTrue(Kuatia::rucCheck('80069563-1'));
        self::assertFalse(Kuatia::rucCheck('80069563-2'));
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::rucDv('8006-563'));
        self::assertSame('INVALID_RUC', $e->code());
        // An empty string is an empty input (a valid pointer of length 0), not a missing argument.
        self::assertSame('INVALID_RUC', self::throws(InvalidInputException::class, static fn () => Kuatia::rucDv(''))->code());
        self::assertSame('INVALID_RUC', self::throws(InvalidInputException::class,
            static fn () => Kuatia::rucValidate('80069563-2'))->code());
    }

    public function testCdcBuildAndParse(): void
    {
        $fields = [
            'tipo_documento' => 1, 'ruc' => '44444401-7', 'establecimiento' => 1, 'punto' => 1, 'numero' => 1,
            'tipo_contribuyente' => 2, 'fecha' => '2025-03-10', 'tipo_emision' => 1, 'codigo_seguridad' => 123456789,
        ];
        $cdc = Kuatia::cdcBuild($fields);
        // The CDC the conformance case records for these fields.
        self::assertSame(self::spec()['expected']['cdc'], $cdc);
        self::assertSame($cdc, Kuatia::cdcBuild((object) $fields)); // objects are JSON objects too
        $parts = Kuatia::cdcParse($cdc);
        self::assertSame($cdc, $parts['cdc']);
        self::assertSame(1, $parts['numero']);
        self::assertSame(123456789, $parts['codigo_seguridad']);
        self::assertSame((int) $cdc[43], $parts['dv']);
        $e = self::throws(InvalidInputException::class,
            static fn () => Kuatia::cdcParse(substr($cdc, 0, 43) . (((int) $cdc[43] + 1) % 10)));
        self::assertSame('INVALID_CDC', $e->code());
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::cdcBuild(['numero' => 'uno'] + $fields));
        self::assertStringStartsWith('numero', $e->path());
    }

    public function testQrBuildMatchesTheManualsExample(): void
    {
        $fields = [
            'cdc' => '01444444017001001001452822017012515873260988', 'fecha_emision' => '2017-01-25T09:35:17',
            'receptor' => ['ruc' => '88899990'], 'total' => '300000', 'total_iva' => '27272', 'items' => 2,
            'digest_value' => 'yzGYhUx1/XYYzksWB+fPR3Qc50c=', 'csc_id' => '0001', 'csc' => Cases::SANDBOX_CSC,
            'ambiente' => 'test',
        ];
        $qr = Kuatia::qrBuild($fields);
        [$base, $params] = explode('?', $qr, 2);
        self::assertSame('https://ekuatia.set.gov.py/consultas-test/qr', $base);
        // Independent check of cHashQR: SHA-256 over the parameters before it, followed by the CSC (SIFEN.md §5).
        $at = strrpos($params, '&cHashQR=');
        self::assertNotFalse($at);
        $hash = substr($params, $at + 9);
        self::assertSame(hash('sha256', substr($params, 0, $at) . Cases::SANDBOX_CSC), $hash);
        self::assertSame('97ddbb3c1e7d65af03a70ffe21f2b34846ab1c89e0566c35222086766b7374ed', $hash);
        preg_match('/dFeEmiDE=(\w+)/', $qr, $m);
        self::assertSame('2017-01-25T09:35:17', hex2bin($m[1]));
        $parsed = Kuatia::qrParse($qr, Cases::SANDBOX_CSC);
        self::assertTrue($parsed['hash_ok']);
        self::assertSame(2, $parsed['items']);
        self::assertFalse(Kuatia::qrParse($qr, 'EFGH0000000000000000000000000000')['hash_ok']);
        self::assertArrayNotHasKey('hash_ok', Kuatia::qrParse($qr));
        self::throws(InvalidInputException::class, static fn () => Kuatia::qrParse('https://example.com/'));
    }

    public function testValidateReportsEveryFindingAndChecksItsArguments(): void
    {
        $bad = Cases::get('invalid_every_finding');
        $report = Kuatia::validate($bad['request'], now: self::NOW);
        self::assertFalse($report->ok);
        self::assertCount(count($bad['expected']['errors']), $report->errors);
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::validate(self::spec()['request'], now: 'yesterday'));
        self::assertSame('now', $e->path());
        $e = self::throws(InvalidInputException::class,
            static fn () => Kuatia::validate(self::spec()['request'], ['nope' => 1], self::NOW));
        self::assertStringStartsWith('profile', $e->path());
        // No $now reads the host's clock (Paraguay time) and still validates.
        self::assertMatchesRegularExpression('/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/', Kuatia::paraguayNow());
        self::assertIsBool(Kuatia::validate(self::spec()['request'])->ok);
    }

    public function testDateTimeNowIsConvertedToParaguayTime(): void
    {
        $spec = self::spec();
        $s = Signer::sandbox();
        $local = new \DateTimeImmutable('2025-03-10 10:11:00', new \DateTimeZone('America/Asuncion'));
        $utc = new \DateTime('2025-03-10 13:11:00', new \DateTimeZone('UTC')); // Paraguay is UTC-3
        $a = Kuatia::issue($spec['request'], $s, 1, 123456789, now: $local);
        $b = Kuatia::issue($spec['request'], $s, 1, 123456789, now: $utc);
        self::assertSame($spec['expected']['cdc'], $a->cdc);
        self::assertSame($a->cdc, $b->cdc);
        self::assertSame(self::NOW, $a->fechaEmision);
        self::assertSame(self::NOW, $b->fechaEmision);
    }

    public function testAmountsNeverCrossAsFloats(): void
    {
        $request = Cases::get('fe_usd')['request'];
        // Strings in, strings out, digit for digit.
        $t = Kuatia::totals($request)['totales'];
        self::assertSame('185.18', $t['total_general']);
        self::assertSame('1351907', $t['total_guaranies']);
        // A float is refused before the library sees it, with its path: it may already have lost digits.
        $request['items'][0]['precio_unitario'] = 123.45;
        $e = self::throws(\TypeError::class, static fn () => Kuatia::totals($request));
        self::assertStringContainsString('items[0].precio_unitario is a float', $e->getMessage());
        $serializable = new class () implements \JsonSerializable {
            public function jsonSerialize(): mixed
            {
                return ['items' => [['cantidad' => 0.1]]];
            }
        };
        $e = self::throws(\TypeError::class, static fn () => Kuatia::totals($serializable));
        self::assertStringContainsString('items[0].cantidad is a float', $e->getMessage());
        $obj = (object) ['tipo_cambio' => 7300.5];
        $e = self::throws(\TypeError::class, static fn () => Kuatia::validate($obj, now: self::NOW));
        self::assertStringContainsString('tipo_cambio is a float', $e->getMessage());
        // Integers stay exact beyond 2^53 (JSON_BIGINT_AS_STRING keeps larger ones as strings when decoding).
        $large = Cases::get('fe_large_pyg');
        $sum = Kuatia::totals($large['request'])['totales'];
        foreach ($large['expected']['totales'] as $key => $value) {
            self::assertSame($value, $sum[$key]);
        }
        $decoded = Cases::decode('{"n":123456789012345678901234567890}');
        self::assertSame('123456789012345678901234567890', $decoded['n']);
    }

    public function testInvalidUtf8IsReportedAsTheLibraryDoes(): void
    {
        $e = self::throws(InvalidUtf8Exception::class, static fn () => Kuatia::rucDv("8006\xff9563"));
        self::assertSame([Status::InvalidUtf8, 'INVALID_UTF8', 'body'], [$e->status(), $e->code(), $e->path()]);
        $e = self::throws(InvalidUtf8Exception::class,
            static fn () => Kuatia::validate('{"tipo_documento":1,"items":[{"descripcion":"' . "\xc3" . '"}]}', now: self::NOW));
        self::assertSame('request_json', $e->path());
        // In an array the bytes cannot become JSON: the same exception, naming the same argument.
        $e = self::throws(InvalidUtf8Exception::class,
            static fn () => Kuatia::validate(['tipo_documento' => 1, 'observacion' => "\xc3("], now: self::NOW));
        self::assertSame(['INVALID_UTF8', 'request_json'], [$e->code(), $e->path()]);
    }

    public function testWrongTypes(): void
    {
        $spec = self::spec();
        $s = Signer::sandbox();
        foreach ([
            static fn () => Kuatia::rucDv(80069563), // @phpstan-ignore-line
            static fn () => Kuatia::validate(42, now: self::NOW), // @phpstan-ignore-line
            static fn () => Kuatia::validate($spec['request'], now: 1741612260), // @phpstan-ignore-line
            static fn () => Kuatia::issue($spec['request'], 'not a signer', 1, 1, now: self::NOW), // @phpstan-ignore-line
            static fn () => Kuatia::issue($spec['request'], $s, '1', 1, now: self::NOW), // @phpstan-ignore-line
            static fn () => Kuatia::totals(null), // @phpstan-ignore-line
        ] as $call) {
            self::throws(\TypeError::class, $call);
        }
        // Values that do not fit the C types are refused instead of being truncated by FFI.
        self::throws(\ValueError::class, static fn () => Kuatia::issue($spec['request'], $s, 1 << 32, 1, now: self::NOW));
        self::throws(\ValueError::class, static fn () => Kuatia::issue($spec['request'], $s, -1, 1, now: self::NOW));
        self::throws(\ValueError::class, static fn () => Kuatia::sifenRequest('consulta', self::GOLDEN_CDC, -1));
        // Wrong JSON types inside the request are findings with the field's path.
        $report = Kuatia::validate(['items' => 'x'] + $spec['request'], now: self::NOW);
        self::assertFalse($report->ok);
        self::assertSame('items', $report->errors[0]->path);
        $e = self::throws(InvalidInputException::class,
            static fn () => Kuatia::totals(['items' => [['cantidad' => [1]]]] + $spec['request']));
        self::assertStringStartsWith('items[0]', $e->findings()[0]->path);
        self::assertSame('MALFORMED_JSON', self::throws(InvalidInputException::class, static fn () => Kuatia::totals('{not json'))->code());
    }

    public function testABadP12NeverEchoesThePassword(): void
    {
        $password = 's3cr3t-Pässwörd';
        $p12 = (string) file_get_contents(Cases::cert('sandbox.p12'));
        $old = ini_set('zend.exception_ignore_args', '0'); // traces with arguments, as in development set-ups
        try {
            foreach (['', 'not a pkcs12 file', substr($p12, 0, 200)] as $blob) {
                $e = self::throws(SignException::class, static fn () => Signer::fromP12($blob, $password));
                self::assertSame('P12_INVALID', $e->code());
                self::assertSame(Status::SignError, $e->status());
                self::assertNoSecret($password, $e);
            }
            $e = self::throws(SignException::class, static fn () => Signer::fromP12($p12, $password));
            self::assertSame('P12_WRONG_PASSWORD', $e->code());
            self::assertNoSecret($password, $e);
            self::assertStringContainsString('SensitiveParameter', $e->getTraceAsString());
        } finally {
            ini_set('zend.exception_ignore_args', (string) $old);
        }
        $e = self::throws(SignException::class,
            static fn () => Signer::fromP12((string) file_get_contents(Cases::cert('rsa1024.p12')), 'kuatia-test'));
        self::assertStringStartsWith('KEY_', $e->code());
    }

    public function testSignersFromP12AndPemSignLikeTheSandbox(): void
    {
        $spec = self::spec();
        $ctx = $spec['context'];
        $a = Signer::fromP12((string) file_get_contents(Cases::cert('sandbox.p12')), 'kuatia-test');
        $b = Signer::fromPem((string) file_get_contents(Cases::cert('sandbox.key.pem')),
            (string) file_get_contents(Cases::cert('sandbox.cert.pem')));
        $legacy = Signer::fromP12((string) file_get_contents(Cases::cert('sandbox-legacy.p12')), 'kuatia-test');
        // RSA PKCS#1 v1.5 is deterministic: the same key gives the byte-identical document Rust recorded.
        foreach ([$a, $b, $legacy] as $signer) {
            $xml = Kuatia::issue($spec['request'], $signer, $ctx['numero'], $ctx['codigo_seguridad'], now: self::NOW)->xml;
            self::assertSame($spec['expected']['xml_sha256'], hash('sha256', $xml));
        }
    }

    public function testSignVerifyTamperAndXmlsec(): void
    {
        $spec = self::spec();
        $preview = Kuatia::previewXml($spec['request'], 1, 123456789, now: self::NOW);
        $s = Signer::sandbox();
        $signed = $s->sign($preview, $spec['expected']['cdc']);
        self::assertSame($signed, Kuatia::sign($preview, $spec['expected']['cdc'], $s));
        self::throws(InvalidInputException::class, static fn () => $s->sign($preview, 'no-such-id'));
        $ok = Kuatia::verify($signed);
        self::assertTrue($ok->valid);
        self::assertTrue($ok->report['digest_ok']);
        self::assertTrue($ok->report['signature_ok']);
        $bad = Kuatia::verify(preg_replace('/<dCodSeg>/', '<dCodSeg>9', $signed, 1) ?? '');
        self::assertFalse($bad->valid);
        self::assertFalse($bad->report['digest_ok']);
        // xmlsec1, an independent verifier (installed by .ci/run), accepts the signature.
        $tmp = tempnam(sys_get_temp_dir(), 'kuatia-php-');
        file_put_contents($tmp, $signed);
        try {
            exec(sprintf('xmlsec1 --verify --id-attr:Id DE --pubkey-cert-pem %s %s 2>&1',
                escapeshellarg(Cases::cert('sandbox.cert.pem')), escapeshellarg($tmp)), $output, $rc);
        } finally {
            unlink($tmp);
        }
        self::assertSame(0, $rc, implode("\n", $output));
    }

    public function testKudePdf(): void
    {
        $spec = self::spec();
        $xml = Kuatia::issue($spec['request'], Signer::sandbox(), 1, 123456789, now: self::NOW)->xml;
        foreach ([KudeFormat::A4, KudeFormat::Ticket, 'ticket'] as $format) {
            $pdf = Kuatia::kudePdf($xml, $format, $format === KudeFormat::Ticket);
            self::assertStringStartsWith('%PDF-', $pdf);
            self::assertStringEndsWith('%%EOF', rtrim($pdf));
            self::assertGreaterThan(1000, strlen($pdf));
        }
        self::assertSame(Kuatia::kudePdf($xml), Kuatia::kudePdf($xml, 'a4'));
        self::assertNotSame(Kuatia::kudePdf($xml), Kuatia::kudePdf($xml, KudeFormat::A4, true));
        self::throws(\ValueError::class, static fn () => Kuatia::kudePdf($xml, 'letter'));
        $e = self::throws(InvalidInputException::class,
            static fn () => Kuatia::kudePdf(Kuatia::previewXml($spec['request'], 1, 1, now: self::NOW)));
        self::assertStringContainsString('dCarQR', $e->path());
        self::throws(InvalidInputException::class, static fn () => Kuatia::kudePdf('<not xml'));
    }

    public function testSignerLifeCycle(): void
    {
        $s = Signer::sandbox();
        self::assertFalse($s->isClosed());
        $s->close();
        $s->close(); // idempotent
        self::assertTrue($s->isClosed());
        self::throws(\LogicException::class, static fn () => Kuatia::issue(self::spec()['request'], $s, 1, 1, now: self::NOW));
        self::throws(\LogicException::class, static fn () => Kuatia::sign('<a Id="x"/>', 'x', $s));
        // Many signers created and dropped: each freed by its destructor (the library wipes the key).
        for ($i = 0; $i < 50; $i++) {
            $t = Signer::sandbox();
            unset($t);
        }
    }

    public function testRandomSecurityCodeChangesTheCdc(): void
    {
        $s = Signer::sandbox();
        $cdcs = [];
        for ($i = 0; $i < 4; $i++) {
            $cdcs[Kuatia::issue(self::spec()['request'], $s, 1, now: self::NOW)->cdc] = true;
        }
        self::assertGreaterThan(1, count($cdcs));
    }

    public function testKuatiaLibOverride(): void
    {
        $script = tempnam(sys_get_temp_dir(), 'kuatia-php-');
        file_put_contents($script, '<?php require ' . var_export(__DIR__ . '/bootstrap.php', true)
            . '; echo Kuatia\\Kuatia::libraryPath();');
        $run = static function (string $lib) use ($script): array {
            exec('KUATIA_LIB=' . escapeshellarg($lib) . ' ' . escapeshellarg(PHP_BINARY) . ' '
                . escapeshellarg($script) . ' 2>&1', $out, $rc);
            return [$rc, implode("\n", $out)];
        };
        try {
            [$rc, $out] = $run('/nonexistent/libkuatia.so');
            self::assertNotSame(0, $rc);
            self::assertStringContainsString('KUATIA_LIB=/nonexistent/libkuatia.so does not exist', $out);
            [$rc, $out] = $run(Kuatia::libraryPath());
            self::assertSame([0, Kuatia::libraryPath()], [$rc, $out]);
        } finally {
            unlink($script);
        }
    }

    public function testSifenRequestParseAndDescribe(): void
    {
        $cdc = self::GOLDEN_CDC;
        $req = Kuatia::sifenRequest('consulta', $cdc, 7);
        self::assertSame('consulta', $req['service']);
        self::assertStringContainsString("<dCDC>{$cdc}</dCDC>", $req['xml']);
        self::assertStringStartsWith('https://sifen-test.', $req['url']);
        self::assertStringStartsWith('https://sifen.set', Kuatia::sifenRequest('consulta', $cdc, 7, true)['url']);
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenRequest('recibe-lote', [], 1));
        self::assertSame('SIFEN_LOT_EMPTY', $e->code());
        $xml = Kuatia::issue(self::spec()['request'], Signer::sandbox(), 1, 123456789, now: self::NOW)->xml;
        $lot = Kuatia::sifenRequest('recibe-lote', [$xml], 8);
        self::assertSame([self::spec()['expected']['cdc']], $lot['cdcs']);
        $answer = (string) file_get_contents(Cases::root() . '/core/tests/sifen_samples/consulta_0422.xml');
        $parsed = Kuatia::sifenParseResponse($answer);
        self::assertSame('consulta', $parsed['service']);
        self::assertStringContainsString('0422', json_encode($parsed['result'], JSON_THROW_ON_ERROR));
        self::assertArrayHasKey('action', $parsed);
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenParseResponse('<html></html>'));
        self::assertSame('SIFEN_UNEXPECTED_RESPONSE', $e->code());
        self::assertSame('0160', Kuatia::sifenDescribe('0160')['code'] ?? null);
        self::assertNull(Kuatia::sifenDescribe('9999'));
        self::assertStringContainsString('XML mal formado', Kuatia::sifenDescribe('0160')['meaning'] ?? '');
        self::assertStringContainsString('malformed', Kuatia::sifenDescribe('0160', 'en')['meaning'] ?? '');
    }

    public function testSifenEventsSignedAndSentInAnEventoRequest(): void
    {
        $signer = Signer::sandbox();
        $cancel = Kuatia::sifenEventSign(['tipo' => 'cancelacion', 'id' => 1, 'fecha_firma' => '2025-03-11T09:00:00',
            'cdc' => self::GOLDEN_CDC, 'motivo' => 'Error en el precio'], '44444401-7', $signer);
        self::assertSame([1, 'rGeVeCan', self::GOLDEN_CDC], [$cancel['id'], $cancel['kind'], $cancel['cdc']]);
        self::assertStringStartsWith('<rGesEve><rEve Id="1">', $cancel['xml']);
        // A receiver event is signed by the receiver (the sandbox certificate's 44444401-7) on a document
        // 80069563-1 emitted to it; JSON text works as well as an array.
        $conf = Kuatia::sifenEventSign('{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"'
            . self::FOREIGN_CDC . '"}', '44444401-7', $signer);
        self::assertSame('rGeVeConf', $conf['kind']);
        $req = Kuatia::sifenRequest('evento', [$cancel, $conf], 9);
        self::assertSame('evento', $req['service']);
        self::assertStringEndsWith('/de/ws/eventos/evento.wsdl', $req['url']);
        self::assertStringContainsString('<dId>9</dId><dEvReg><gGroupGesEve', $req['xml']);
        self::assertSame(2, substr_count($req['xml'], '<rGesEve>'));
        self::assertSame('1', Kuatia::verify($req['xml'])->report['reference_id']);

        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenEventSign(['tipo' => 'cancelacion',
            'id' => 1, 'fecha_firma' => '2025-03-11T09:00:00', 'cdc' => self::GOLDEN_CDC, 'motivo' => 'mal'],
            '44444401-7', $signer));
        self::assertSame(['SIFEN_EVENT_INVALID', 'motivo'], [$e->code(), $e->path()]);
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenEventSign(['tipo' => 'conformidad',
            'id' => 2, 'fecha_firma' => '2025-03-11T09:00:00', 'cdc' => self::GOLDEN_CDC], '44444401-7', $signer));
        self::assertSame('SIFEN_EVENT_SIGNER', $e->code()); // the emitter cannot agree with its own document
        $e = self::throws(InvalidInputException::class,
            static fn () => Kuatia::sifenEventSign(['tipo' => 'anulacion', 'id' => 1], '44444401-7', $signer));
        self::assertSame([['VALIDATION_ERROR.INVALID_VALUE', 'tipo'], ['VALIDATION_ERROR.REQUIRED', 'fecha_firma']],
            array_map(static fn ($f): array => [$f->code, $f->path], $e->findings()));
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenRequest('evento', [$cancel, $cancel], 9));
        self::assertSame('SIFEN_EVENT_DUPLICATE_ID', $e->code());
        $tampered = ['xml' => str_replace('Error en el precio', 'Error en el monto', $cancel['xml'])] + $cancel;
        $e = self::throws(InvalidInputException::class, static fn () => Kuatia::sifenRequest('evento', [$tampered], 9));
        self::assertSame(['SIFEN_EVENT_INVALID', 'arg[0].xml'], [$e->code(), $e->path()]);
        $signer->close();
        self::throws(\LogicException::class,
            static fn () => Kuatia::sifenEventSign(['tipo' => 'cancelacion'], '44444401-7', $signer));
    }

    private static function assertNoSecret(string $secret, KuatiaException $e): void
    {
        $texts = [$e->getMessage(), $e->message(), $e->path(), (string) $e, $e->getTraceAsString(),
            print_r($e->findings(), true), var_export($e->getTrace(), true)];
        foreach ($texts as $text) {
            self::assertStringNotContainsString($secret, $text);
        }
    }

    /**
     * Runs `$fn`, asserts it throws `$class`, and returns the exception.
     *
     * @template T of \Throwable
     * @param class-string<T> $class
     * @return T
     */
    private static function throws(string $class, callable $fn): \Throwable
    {
        try {
            $fn();
        } catch (\Throwable $e) {
            self::assertInstanceOf($class, $e, get_class($e) . ': ' . $e->getMessage());
            return $e;
        }
        self::fail("expected {$class}, nothing was thrown");
    }
}
