<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use Kuatia\ApiException;
use Kuatia\Service;
use Kuatia\Signer;
use PHPUnit\Framework\TestCase;

/**
 * The typed calls of Kuatia\Service drive the shared flow of tests/fixtures/service_flow.json (every binding replays
 * it and compares with the same values): create, list with a filter and a cursor, get, xml, webhook
 * get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core.
 */
final class ServiceFlowTest extends TestCase
{
    public function testSharedServiceFlow(): void
    {
        $flow = json_decode(
            (string) file_get_contents(Cases::root() . '/tests/fixtures/service_flow.json'),
            true,
            512,
            JSON_THROW_ON_ERROR,
        );
        $now = $flow['now'];
        $svc = new Service(null, Signer::sandbox());
        $key = $svc->createAccount('Empresa de prueba', $now)['key'];
        $h = ['Authorization' => "Bearer {$key}", 'X-Environment' => 'sandbox'];
        $hook = $svc->createWebhook($h, $flow['webhook']['url'], $flow['webhook']['events'], $now);
        self::assertStringStartsWith($flow['rotate']['secret_prefix'], $hook['secret']);
        $created = [];
        foreach ($flow['simulate'] as $i => $sim) {
            $inv = $svc->createInvoice($h, $flow['factura'] + ['_simulate' => $sim], "flow-{$i}", $now);
            self::assertSame($sim, $inv['status']);
            $created[] = $inv;
        }

        // List with a filter, walking the cursor.
        $pages = [];
        $more = [];
        $filters = $flow['list']['filters'];
        while (true) {
            $page = $svc->listInvoices($h, $filters, $now);
            $pages[] = array_map(static fn (array $f): string => $f['numero'], $page->data);
            $more[] = $page->hasMore();
            if (!$page->hasMore()) {
                break;
            }
            $filters['starting_after'] = $page->nextCursor();
        }
        self::assertSame([$flow['list']['pages'], $flow['list']['has_more']], [$pages, $more]);

        $inv = $svc->getInvoice($h, $created[0]['id'], $now);
        $want = $flow['invoice'];
        self::assertSame(
            [$want['status'], $want['numero'], $want['total'], $want['moneda'], $want['receptor_ruc'], $want['items']],
            [$inv['status'], $inv['numero'], $inv['total'], $inv['moneda'], $inv['receptor']['ruc'], count($inv['items'])],
        );
        self::assertSame($created[0]['cdc'], $inv['cdc']);
        $xml = $svc->invoiceXml($h, $inv['id'], $now);
        foreach ([...$flow['xml']['contains'], $inv['cdc']] as $part) {
            self::assertStringContainsString($part, $xml);
        }
        $r = $svc->handle('GET', "/v1/facturas/{$inv['id']}/xml", $h, null, $now);
        self::assertStringStartsWith($flow['xml']['content_type'], (string) $r->header('content-type'));

        // Webhooks: the deliveries, a rotation, a redelivery, the deletion.
        self::assertSame($flow['webhook']['url'], $svc->getWebhook($h, $hook['id'], $now)['url']);
        $log = $svc->deliveries($h, $hook['id'], [], $now);
        self::assertCount($flow['deliveries']['count'], $log->data);
        foreach ($log->data as $d) {
            self::assertSame($flow['deliveries']['type'], $d['type']);
        }
        $rotated = $svc->rotateWebhook($h, $hook['id'], $now);
        self::assertStringStartsWith($flow['rotate']['secret_prefix'], $rotated['secret']);
        self::assertNotSame($hook['secret'], $rotated['secret']);
        self::assertNotNull($rotated['previous_secret_expires_at']);
        $first = $log->data[count($log->data) - 1];
        $again = $svc->redeliver($h, $hook['id'], $first['id'], $now);
        self::assertSame($flow['redeliver']['status'], $again['status']);
        self::assertSame($first['event_id'], $again['event_id']);
        self::assertNotSame($first['id'], $again['id']);
        self::assertEquals(['id' => $hook['id'], 'deleted' => true], $svc->deleteWebhook($h, $hook['id'], $now));

        // Errors are the core's.
        foreach ([
            [$flow['bad_filter'], static fn () => $svc->listInvoices($h, $flow['bad_filter']['filters'], $now)],
            [$flow['deleted_get'], static fn () => $svc->getWebhook($h, $hook['id'], $now)],
        ] as [$expected, $call]) {
            try {
                $call();
                self::fail('no ApiException');
            } catch (ApiException $e) {
                self::assertSame([$expected['status'], $expected['code']], [$e->status(), $e->errorCode()]);
            }
        }
        $svc->close();
    }
}
