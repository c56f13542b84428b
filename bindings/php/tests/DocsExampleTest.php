<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use PHPUnit\Framework\TestCase;

/** The example of docs/php.md runs as written, as a user's script next to vendor/autoload.php. */
final class DocsExampleTest extends TestCase
{
    public function testTheDocsExampleRuns(): void
    {
        $doc = (string) file_get_contents(Cases::root() . '/docs/php.md');
        self::assertSame(1, preg_match('/<!-- test: php -->\s*```php\n(.*?)```/s', $doc, $m),
            'docs/php.md has no PHP example after <!-- test: php -->');
        $dir = sys_get_temp_dir() . '/kuatia-php-example-' . getmypid();
        @mkdir($dir . '/vendor', 0700, true);
        // The package's autoloader stands in for Composer's.
        file_put_contents($dir . '/vendor/autoload.php', '<?php require ' . var_export(__DIR__ . '/bootstrap.php', true) . ';');
        file_put_contents($dir . '/example.php', $m[1]);
        try {
            exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg($dir . '/example.php') . ' 2>&1', $out, $rc);
        } finally {
            unlink($dir . '/example.php');
            unlink($dir . '/vendor/autoload.php');
            rmdir($dir . '/vendor');
            rmdir($dir);
        }
        self::assertSame(0, $rc, implode("\n", $out));
        self::assertSame(['100000', '0144444401700100100000012202503101 001-001-0000001 KuDE ok', 'P12_INVALID'], $out);
        // What the docs say it prints is what it prints.
        self::assertStringContainsString('It prints `' . $out[0] . '`, `' . $out[1] . '` and `' . $out[2] . '`', $doc);
    }
}
