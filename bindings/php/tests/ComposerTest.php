<?php

declare(strict_types=1);

namespace Kuatia\Tests;

use PHPUnit\Framework\TestCase;

/**
 * composer.json is valid: `composer validate --strict` where Composer is installed, and always a structural check
 * of what Composer and Packagist require (Composer is not a Debian dependency of these tests).
 */
final class ComposerTest extends TestCase
{
    /** Top-level properties of Composer's JSON schema (https://getcomposer.org/schema.json). */
    private const KNOWN = ['name', 'description', 'version', 'type', 'keywords', 'homepage', 'readme', 'time',
        'license', 'authors', 'support', 'funding', 'require', 'require-dev', 'conflict', 'replace', 'provide',
        'suggest', 'autoload', 'autoload-dev', 'include-path', 'target-dir', 'minimum-stability', 'prefer-stable',
        'repositories', 'config', 'scripts', 'extra', 'bin', 'archive', 'abandoned', 'non-feature-branches',
        'default-branch', 'php-ext'];

    private static function package(): string
    {
        return dirname(__DIR__);
    }

    public function testComposerValidate(): void
    {
        $composer = trim((string) shell_exec('command -v composer 2>/dev/null'));
        // Composer's own verdict is part of the check: a machine without it fails here (Debian's `composer`,
        // installed by .ci/run), it does not pass silently.
        self::assertNotSame('', $composer, 'composer is not installed (apt-get install composer)');
        exec(escapeshellarg($composer) . ' validate --strict --no-check-publish --working-dir='
            . escapeshellarg(self::package()) . ' 2>&1', $out, $rc);
        self::assertSame(0, $rc, implode("\n", $out));
    }

    public function testStructure(): void
    {
        $c = json_decode((string) file_get_contents(self::package() . '/composer.json'), true, 512, JSON_THROW_ON_ERROR);
        self::assertIsArray($c);
        self::assertSame([], array_values(array_diff(array_keys($c), self::KNOWN)), 'unknown top-level keys');
        // Name: vendor/package in Composer's pattern.
        self::assertSame('kuatia/kuatia', $c['name']);
        self::assertMatchesRegularExpression(
            '{^[a-z0-9]([_.-]?[a-z0-9]+)*/[a-z0-9](([_.]?|-{0,2})[a-z0-9]+)*$}', $c['name']);
        self::assertIsString($c['description']);
        self::assertNotSame('', trim($c['description']));
        self::assertSame('library', $c['type']);
        self::assertArrayNotHasKey('version', $c, 'the version comes from the VCS tag');
        // Licences: the workspace's "MIT OR Apache-2.0" (a list means the user may choose).
        $cargo = (string) file_get_contents(Cases::root() . '/Cargo.toml');
        self::assertStringContainsString('license = "MIT OR Apache-2.0"', $cargo);
        self::assertSame(['MIT', 'Apache-2.0'], $c['license']);
        // PHP >= 8.1 and no package dependencies: only the platform (php, extensions).
        self::assertSame('>=8.1', $c['require']['php']);
        foreach (array_keys($c['require']) as $dep) {
            self::assertMatchesRegularExpression('/^(php|ext-[a-z0-9_]+)$/', $dep, "dependency {$dep}");
        }
        self::assertArrayHasKey('ext-ffi', $c['require']);
        self::assertArrayNotHasKey('require-dev', $c);
        foreach (['keywords'] as $list) {
            self::assertTrue(array_is_list($c[$list]));
        }
        // PSR-4: Kuatia\ -> src/, one class per file named after it, in that namespace.
        self::assertSame(['Kuatia\\' => 'src/'], $c['autoload']['psr-4']);
        self::assertSame(['Kuatia\\Tests\\' => 'tests/'], $c['autoload-dev']['psr-4']);
        $files = glob(self::package() . '/src/*.php') ?: [];
        self::assertGreaterThanOrEqual(10, count($files));
        foreach ($files as $file) {
            $src = (string) file_get_contents($file);
            $class = basename($file, '.php');
            self::assertStringContainsString("\nnamespace Kuatia;\n", $src, $file);
            self::assertMatchesRegularExpression("/\\n(final |abstract )?(class|enum|interface) {$class}\\b/", $src, $file);
            self::assertTrue(class_exists("Kuatia\\{$class}") || enum_exists("Kuatia\\{$class}"), $class);
        }
    }
}
