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
 * get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core; then its `email` part: the buyer's
 * messages captured in-process, a resend, and the month's archive.
 */
final class ServiceFlowTest extends TestCase
{
    /** @return array<string, mixed> tests/fixtures/service_flow.json */
    private static function flow(): array
    {
        return json_decode(
            (string) file_get_contents(Cases::root() . '/tests/fixtures/service_flow.json'),
            true,
            512,
            JSON_THROW_ON_ERROR,
        );
    }

    public function testSharedServiceFlow(): void
    {
        $flow = self::flow();
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

    public function testSharedEmailFlow(): void
    {
        $flow = self::flow();
        $mail = $flow['email'];
        $now = $flow['now'];
        $svc = new Service(null, Signer::sandbox());
        $key = $svc->createAccount('Empresa de prueba', $now)['key'];
        $h = ['Authorization' => "Bearer {$key}", 'X-Environment' => 'sandbox'];
        $factura = $flow['factura'];
        $factura['receptor']['email'] = $mail['to'];
        $inv = $svc->createInvoice($h, $factura, null, $now);
        self::assertSame([], $svc->invoiceEmails($h, $inv['id'], $now));

        // The simulated SIFEN approves it; the approval captures the buyer's message (nothing sends in-process).
        $later = $now + $mail['tick_after'];
        $svc->tick($later);
        self::assertSame($mail['status'], $svc->getInvoice($h, $inv['id'], $later)['status']);
        $keys = array_flip(['kind', 'status', 'to', 'attempts']);
        $pick = static fn (array $m): array => array_intersect_key($m, $keys);
        $messages = $svc->invoiceEmails($h, $inv['id'], $later);
        self::assertEquals($mail['messages'], array_map($pick, $messages));
        foreach ($mail['subject_contains'] as $part) {
            self::assertStringContainsString($part, $messages[0]['subject']);
        }
        self::assertStringContainsString($inv['cdc'], $messages[0]['body']);

        $later++;
        $again = $svc->resendEmail($h, $inv['id'], $mail['resend_to'], $later);
        self::assertEquals($mail['resend'], $pick($again));
        try {
            $svc->resendEmail($h, $inv['id'], $mail['resend_bad']['to'], $later);
            self::fail('no ApiException');
        } catch (ApiException $e) {
            self::assertSame([$mail['resend_bad']['status'], $mail['resend_bad']['code']], [$e->status(), $e->errorCode()]);
        }
        $after = $svc->invoiceEmails($h, $inv['id'], $later);
        self::assertSame([$messages[0]['id'], $again['id']], array_column($after, 'id'));
        $email = $svc->getInvoice($h, $inv['id'], $later)['email'];
        self::assertSame($mail['invoice_email'], ['status' => $email['status'], 'to' => $email['to']]);

        $archive = $mail['archive'];
        $zip = $svc->monthArchive($h, $archive['mes'], $later);
        self::assertStringStartsWith($archive['magic'], $zip);
        $want = array_map(static fn (string $m): string => str_replace('{cdc}', $inv['cdc'], $m), $archive['members']);
        self::assertSame($want, self::zipNames($zip));
        $r = $svc->handle('GET', "/v1/archivo?mes={$archive['mes']}", $h, null, $later);
        self::assertSame($archive['content_type'], $r->header('content-type'));
        $svc->close();
    }

    /**
     * The member names of a zip, in order, read from its central directory (PHP's zip extension is not required).
     *
     * @return list<string>
     */
    private static function zipNames(string $zip): array
    {
        $end = strrpos($zip, "PK\x05\x06");
        self::assertNotFalse($end, 'no end of central directory record');
        ['entries' => $n, 'offset' => $at] = unpack('ventries/Vsize/Voffset', $zip, $end + 10);
        $names = [];
        for ($i = 0; $i < $n; $i++) {
            self::assertSame("PK\x01\x02", substr($zip, $at, 4), 'a central directory header');
            ['name' => $len, 'extra' => $extra, 'comment' => $comment] = unpack('vname/vextra/vcomment', $zip, $at + 28);
            $names[] = substr($zip, $at + 46, $len);
            $at += 46 + $len + $extra + $comment;
        }
        return $names;
    }
}
