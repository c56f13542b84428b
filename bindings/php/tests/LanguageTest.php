<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\ApiException;
use Kuatia\Finding;
use Kuatia\InvalidInputException;
use Kuatia\Kuatia;
use Kuatia\Service;
use PHPUnit\Framework\TestCase;

/** The language of messages: Spanish by default, English after setLanguage('en'); the rule id and its parameters. */
final class LanguageTest extends TestCase
{
    private const ES = 'El dígito verificador del RUC no corresponde: debería ser 1, no 2';
    private const EN = 'wrong RUC check digit: expected 1, got 2';

    protected function tearDown(): void
    {
        Kuatia::setLanguage('es');
    }

    /** The error of rucValidate('80069563-2'): its check digit is 1 (SIFEN.md §1). */
    private static function badRuc(): InvalidInputException
    {
        try {
            Kuatia::rucValidate('80069563-2');
        } catch (InvalidInputException $e) {
            return $e;
        }
        self::fail('80069563-2 was accepted');
    }

    public function testABadCheckDigitReadsInSpanishByDefaultAndInEnglishWhenChosen(): void
    {
        self::assertSame('es', Kuatia::language());
        $e = self::badRuc();
        self::assertSame(['INVALID_RUC', 'ruc.check_digit', self::ES], [$e->code(), $e->rule(), $e->message()]);
        self::assertSame(['expected' => '1', 'got' => '2'], $e->params());
        self::assertEquals(
            [new Finding('INVALID_RUC', '', self::ES, 'ruc.check_digit', ['expected' => '1', 'got' => '2'])],
            $e->findings(),
        );
        Kuatia::setLanguage('en');
        $e = self::badRuc();
        self::assertSame(['ruc.check_digit', self::EN, self::EN], [$e->rule(), $e->message(), $e->findings()[0]->message]);
    }

    public function testAValidationReportAndLocalize(): void
    {
        $request = Cases::get('fe_spec_example')['request'];
        $request['receptor']['ruc'] = '80069563-2';
        $find = static function () use ($request): Finding {
            foreach (Kuatia::validate($request, now: Cases::NOW)->errors as $f) {
                if ($f->rule === 'ruc.check_digit') {
                    return $f;
                }
            }
            self::fail('no ruc.check_digit finding');
        };
        self::assertSame([self::ES, 'receptor.ruc'], [$find()->message, $find()->path]);
        Kuatia::setLanguage('en');
        self::assertSame(self::EN, $find()->message);
        $report = '{"ok":false,"errors":[{"code":"INVALID_RUC","path":"ruc","message":"x","rule":"ruc.check_digit",'
            . '"params":{"expected":"1","got":"2"}}]}';
        self::assertSame(self::ES, Kuatia::localize($report, 'es-PY')['errors'][0]['message']);
        self::assertSame(self::EN, Kuatia::localize($report)['errors'][0]['message']);
        try {
            Kuatia::localize('{"ok":', 'es');
            self::fail('bad JSON was localized');
        } catch (InvalidInputException $e) {
            self::assertSame('MALFORMED_JSON', $e->code());
        }
    }

    public function testRulesAreTheRegistry(): void
    {
        $rules = Kuatia::rules();
        $recorded = json_decode((string) file_get_contents(Cases::root() . '/tests/fixtures/rules.json'), true);
        foreach ($recorded as $r) {
            self::assertContains($r, $rules);
        }
        $check = array_values(array_filter($rules, static fn (array $r): bool => $r['rule'] === 'ruc.check_digit'))[0];
        self::assertSame('INVALID_RUC', $check['code']);
        self::assertSame(['expected', 'got'], array_column($check['params'], 'name'));
    }

    /** A typed call asks for the chosen language unless the caller's headers do; handle() sends what it is given. */
    public function testTypedServiceCallsAskForTheChosenLanguage(): void
    {
        $svc = new Service();
        $h = ['Authorization' => 'Bearer ' . $svc->createAccount('A')['key'], 'X-Environment' => 'sandbox'];
        $missing = static function (array $headers) use ($svc): string {
            try {
                $svc->getInvoice($headers, 'inv_0000000000000000');
            } catch (ApiException $e) {
                self::assertSame(404, $e->status());
                return $e->getMessage();
            }
            self::fail('a missing invoice was found');
        };
        self::assertSame('404 NOT_FOUND: No existe una factura con ese id', $missing($h));
        Kuatia::setLanguage('en');
        self::assertSame('404 NOT_FOUND: no invoice with that id', $missing($h));
        self::assertSame('404 NOT_FOUND: No existe una factura con ese id', $missing($h + ['accept-language' => 'es-PY']));
        self::assertSame('es-PY', $svc->handle('GET', '/v1/facturas/inv_0000000000000000', $h)->header('Content-Language'));
    }
}
