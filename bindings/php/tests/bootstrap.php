<?php

declare(strict_types=1);

// Composer's autoloader when the package was installed with Composer; otherwise the same PSR-4 mapping by hand
// (the package has no dependencies, so the tests run from a plain checkout with Debian's phpunit).
$composer = dirname(__DIR__) . '/vendor/autoload.php';
if (is_file($composer)) {
    require $composer;
} else {
    spl_autoload_register(static function (string $class): void {
        foreach (['Kuatia\\Tests\\' => __DIR__ . '/', 'Kuatia\\' => dirname(__DIR__) . '/src/'] as $prefix => $dir) {
            if (str_starts_with($class, $prefix)) {
                $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
                if (is_file($file)) {
                    require $file;
                }
                return;
            }
        }
    });
}
// Errors, warnings and deprecations are failures, not noise.
set_error_handler(static function (int $no, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $no, $file, $line);
});
