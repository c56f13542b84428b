<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\InvalidArgumentException;
use Kuatia\InvalidInputException;
use Kuatia\Kuatia;
use Kuatia\Service;
use Kuatia\SifenOutcome;
use Kuatia\Signer;
use PHPUnit\Framework\TestCase;

/** Kuatia\Service: the in-process /v1 API driven like an HTTP client (spec flow, 401, webhooks, SIFEN jobs). */
final class ServiceTest extends TestCase
{
    private const NOW = 1_741_612_260; // 2025-03-10 13:11:00 UTC = 10:11 in Asunción
    private const SAMPLE_CDC = '01444444017001001000000122025031011234567890';
    private const FACTURA = [
        'tipo_documento' => 1,
        'receptor' => ['ruc' => '80069563-1', 'razon_social' => 'Cliente Ejemplo S.A.'],
        'items' => [['descripcion' => 'Servicio de consultoría', 'cantidad' => 1, 'precio_unitario' => 1100000, 'iva' => 10]],
        'condicion_pago' => 1,
    ];

    /** @return array<string, string> */
    private static function sandboxHeaders(string $key): array
    {
        return ['Authorization' => "Bearer {$key}", 'X-Environment' => 'sandbox'];
    }

    public function testSpecFlowSimulateApprovedGetAndKude(): void
    {
        $signer = Signer::sandbox();
        $svc = new Service(['base_url' => 'https://erp.example.test'], $signer);
        $acct = $svc->createAccount('Empresa de prueba', self::NOW);
        self::assertStringStartsWith('acct_', $acct['account_id']);
        self::assertStringStartsWith('dk_test_', $acct['key']);
        $h = self::sandboxHeaders($acct['key']);
        $r = $svc->handle('POST', '/v1/facturas', $h, ['_simulate' => 'approved'] + self::FACTURA, self::NOW);
        self::assertSame(201, $r->status, $r->body);
        self::assertSame('application/json; charset=utf-8', $r->header('content-type'));
        $data = $r->json()['data'];
        self::assertSame('approved', $data['status']);
        self::assertSame('001-001-0000001', $data['numero']);
        self::assertSame("https://erp.example.test/v1/facturas/{$data['id']}/kude", $data['kude_url']);
        // The CDC is valid for the library's own parser and carries the sandbox emitter.
        self::assertSame('44444401-7', Kuatia::cdcParse($data['cdc'])['ruc']);
        // Amounts come back as strings, never floats.
        array_walk_recursive($data, static function ($leaf, $key): void {
            self::assertFalse(is_float($leaf), "{$key} is a float");
        });

        $g = $svc->handle('GET', "/v1/facturas/{$data['id']}", $h, null, self::NOW + 1);
        self::assertSame(200, $g->status);
        self::assertSame($data['cdc'], $g->json()['data']['cdc']);

        $k = $svc->handle('GET', "/v1/facturas/{$data['id']}/kude", $h, null, self::NOW + 2);
        self::assertSame(200, $k->status);
        self::assertSame('application/pdf', $k->header('Content-Type'));
        self::assertStringStartsWith('%PDF-', $k->body);
        self::assertStringContainsString('%%EOF', substr($k->body, -64));
        // The service holds its signer: closing the service first, then the signer, is the normal order.
        $svc->close();
        $signer->close();
    }

    public function test401WithoutOrWithAnUnknownKey(): void
    {
        $svc = new Service();
        $svc->createAccount('A', self::NOW);
        $r = $svc->handle('GET', '/v1/facturas', [], null, self::NOW);
        self::assertSame(401, $r->status);
        self::assertSame('UNAUTHORIZED', $r->json()['error']['code']);
        self::assertSame('Bearer', $r->header('www-authenticate'));
        $other = new Service();
        $foreign = $other->createAccount('B', self::NOW)['key'];
        $other->close();
        self::assertSame(401, $svc->handle('GET', '/v1/facturas', self::sandboxHeaders($foreign), null, self::NOW)->status);
        // Headers as [name, value] pairs work as well as a map.
        $pairs = [['Authorization', "Bearer {$foreign}"], ['X-Environment', 'sandbox']];
        self::assertSame(401, $svc->handle('GET', '/v1/facturas', $pairs, null, self::NOW)->status);
    }

    public function testSandboxAdvancesWithTheGivenClock(): void
    {
        $svc = new Service(['sandbox_send_after' => 10, 'sandbox_answer_after' => 20]);
        $h = self::sandboxHeaders($svc->createAccount('A', self::NOW)['key']);
        $body = json_encode(self::FACTURA, JSON_THROW_ON_ERROR); // JSON text as the body
        $fid = $svc->handle('POST', '/v1/facturas', $h, $body, self::NOW)->json()['data']['id'];
        $status = static fn (int $t): string => $svc->handle('GET', "/v1/facturas/{$fid}", $h, null, $t)->json()['data']['status'];
        self::assertSame('pending', $status(self::NOW + 9));
        self::assertSame('sent', $status(self::NOW + 10));
        $svc->tick(self::NOW + 20);
        self::assertSame('approved', $status(self::NOW + 20));
        // A \DateTimeInterface is a moment as well.
        self::assertSame('approved', $svc->handle('GET', "/v1/facturas/{$fid}", $h, null,
            new \DateTimeImmutable('@' . (self::NOW + 30)))->json()['data']['status']);
    }

    public function testWebhooksDueSignedAndReported(): void
    {
        $svc = new Service();
        $h = self::sandboxHeaders($svc->createAccount('A', self::NOW)['key']);
        $w = $svc->handle('POST', '/v1/webhooks', $h, ['url' => 'https://erp.example.test/h', 'events' => ['factura.approved']], self::NOW);
        self::assertSame(201, $w->status);
        $secret = $w->json()['data']['secret'];
        self::assertSame(201, $svc->handle('POST', '/v1/facturas', $h, ['_simulate' => 'approved'] + self::FACTURA, self::NOW)->status);
        $due = $svc->dueDeliveries(self::NOW);
        self::assertCount(1, $due);
        $d = $due[0];
        self::assertSame('factura.approved', Cases::decode($d['body'])['type']);
        $sig = null;
        foreach ($d['headers'] as [$k, $v]) {
            if ($k === 'Kuatia-Signature') {
                $sig = $v;
            }
        }
        // Recomputed with PHP's own HMAC: t=<timestamp>,v1=hex(HMAC-SHA256(secret, "t.body")).
        self::assertSame('t=' . self::NOW . ',v1=' . hash_hmac('sha256', self::NOW . '.' . $d['body'], $secret), $sig);
        $again = $svc->reportDelivery($d['id'], false);
        self::assertSame('pending', $again['status']);
        self::assertSame(self::NOW + 60, $again['next_attempt_at']);
        self::assertSame([], $svc->dueDeliveries(self::NOW + 59));
        self::assertSame('delivered', $svc->reportDelivery($d['id'], true)['status']);
        try {
            $svc->reportDelivery('dlv_nope', true);
            self::fail('unknown delivery accepted');
        } catch (InvalidInputException $e) {
            self::assertSame('NOT_FOUND', $e->code());
        }
    }

    public function testKeysErrorsAndLifeCycle(): void
    {
        $svc = new Service();
        $acct = $svc->createAccount('A', self::NOW);
        self::assertStringStartsWith('dk_live_', $svc->createKey($acct['account_id'], true));
        self::assertStringStartsWith('dk_test_', $svc->createKey($acct['account_id']));
        try {
            $svc->createKey('acct_nobody');
            self::fail('unknown account accepted');
        } catch (InvalidInputException $e) {
            self::assertSame(['NOT_FOUND', 'account_id'], [$e->code(), $e->path()]);
        }
        try {
            new Service(['colour' => 'red']);
            self::fail('unknown config field accepted');
        } catch (InvalidInputException $e) {
            self::assertSame('config.colour', $e->path());
        }
        $svc->close();
        $svc->close();
        self::assertTrue($svc->isClosed());
        $this->expectException(\LogicException::class);
        $svc->createAccount('B');
    }

    public function testAClosedSignerIsRefusedNotUsed(): void
    {
        $signer = Signer::sandbox();
        $svc = new Service(null, $signer);
        $h = self::sandboxHeaders($svc->createAccount('A', self::NOW)['key']);
        $signer->close();
        $this->expectException(\LogicException::class);
        $svc->handle('POST', '/v1/facturas', $h, self::FACTURA, self::NOW);
    }

    /** A service whose account issues live invoices with the sandbox profile (SIFEN's test environment). */
    private static function liveService(Signer $signer): array
    {
        $svc = new Service(['sifen_retry' => [1]], null, $signer);
        $acct = $svc->createAccount('Emisor', self::NOW);
        $live = $svc->createKey($acct['account_id'], true, self::NOW);
        $svc->setProductionProfile($acct['account_id']);
        return [$svc, ['Authorization' => "Bearer {$live}"]];
    }

    private static function sample(string $name): string
    {
        return (string) file_get_contents(Cases::root() . '/core/tests/sifen_samples/' . $name);
    }

    public function testSifenApprovalRoundTrip(): void
    {
        [$svc, $h] = self::liveService(Signer::sandbox());
        $created = $svc->handle('POST', '/v1/facturas', $h, self::FACTURA, self::NOW);
        self::assertSame(201, $created->status, $created->body);
        $data = $created->json()['data'];
        self::assertSame('pending', $data['status']);
        $jobs = $svc->dueSifen(10, self::NOW);
        self::assertCount(1, $jobs);
        $job = $jobs[0];
        self::assertSame('recibe', $job['service']);
        self::assertSame('https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl', $job['url']);
        self::assertSame([$data['id']], $job['invoices']);
        self::assertStringContainsString("<DE Id=\"{$data['cdc']}\"", $job['body']);
        self::assertSame([], $svc->dueSifen(10, self::NOW)); // in flight

        $answer = str_replace(self::SAMPLE_CDC, $data['cdc'], self::sample('recibe_aprobado.xml'));
        $progress = $svc->reportSifen($job, SifenOutcome::answer(200, $answer), self::NOW + 1);
        self::assertCount(1, $progress);
        self::assertSame($data['id'], $progress[0]['invoice_id']);
        self::assertSame('approved', $progress[0]['status']);
        self::assertSame('idle', $progress[0]['transmission']['next']);
        $inv = $svc->handle('GET', "/v1/facturas/{$data['id']}", $h, null, self::NOW + 2)->json()['data'];
        self::assertSame('approved', $inv['status']);
        self::assertSame('1234567890', $inv['protocolo']);
    }

    public function testSifenTimeoutIsQueriedByCdcAfterTheBackoff(): void
    {
        [$svc, $h] = self::liveService(Signer::sandbox());
        $data = $svc->handle('POST', '/v1/facturas', $h, self::FACTURA, self::NOW)->json()['data'];
        [$job] = $svc->dueSifen(10, self::NOW);
        // The job may come back as JSON text too.
        [$p] = $svc->reportSifen(json_encode($job, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), SifenOutcome::timeout(), self::NOW);
        self::assertSame('pending', $p['status']);
        self::assertSame('query', $p['transmission']['next']);
        self::assertSame(self::NOW + 1, $p['transmission']['due_at']);
        self::assertSame([], $svc->dueSifen(10, self::NOW));
        [$query] = $svc->dueSifen(10, self::NOW + 1);
        self::assertSame('consulta', $query['service']);
        self::assertStringContainsString($data['cdc'], $query['body']);
        // Raw bytes that are not UTF-8 travel as they are; a transport failure keeps its message.
        [$p] = $svc->reportSifen($query, SifenOutcome::answer(502, "<html>\xff</html>"), self::NOW + 1);
        self::assertStringStartsWith('HTTP 502', $p['transmission']['last_error']);
        [$query] = $svc->dueSifen(10, self::NOW + 2);
        [$p] = $svc->reportSifen($query, SifenOutcome::failed('connection refused'), self::NOW + 2);
        self::assertSame('transport: connection refused', $p['transmission']['last_error']);
        self::assertSame(3, $p['transmission']['attempts']);
    }

    public function testSifenArgumentErrors(): void
    {
        $svc = new Service();
        $acct = $svc->createAccount('A', self::NOW);
        foreach ([
            ['NOT_FOUND', null, static fn () => $svc->setProductionProfile('acct_nobody')],
            [null, 'profile', static fn () => $svc->setProductionProfile($acct['account_id'], ['ruc' => 1])],
            ['MALFORMED_JSON', null, static fn () => $svc->reportSifen('{', SifenOutcome::timeout())],
        ] as [$code, $path, $call]) {
            try {
                $call();
                self::fail('accepted');
            } catch (InvalidInputException $e) {
                if ($code !== null) {
                    self::assertSame($code, $e->code());
                }
                if ($path !== null) {
                    self::assertStringStartsWith($path, $e->path());
                }
            }
        }
        $job = ['account_id' => 'acct_x', 'service' => 'recibe', 'url' => 'https://x', 'content_type' => 'application/xml',
            'body' => '<x/>', 'd_id' => 1, 'invoices' => []];
        self::assertSame([], $svc->reportSifen($job, SifenOutcome::timeout()));
        try {
            $svc->reportSifen($job, new SifenOutcome(7));
            self::fail('outcome 7 accepted');
        } catch (InvalidArgumentException $e) {
            self::assertSame('outcome', $e->path());
        }
        foreach ([
            static fn () => SifenOutcome::answer(70000, ''),
            static fn () => $svc->dueSifen(-1),
        ] as $call) {
            try {
                $call();
                self::fail('accepted');
            } catch (\ValueError) {
                self::addToAssertionCount(1);
            }
        }
    }
}
