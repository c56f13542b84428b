<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * One problem: a stable `code` (`VALIDATION_ERROR.REQUIRED`), the JSON `path` (`items[1].iva`), a message in the
 * chosen language ({@see Kuatia::setLanguage()}), the `rule` that found it (`ruc.check_digit`; `unclassified` while
 * its text is still an English sentence) and the rule's `params`.
 */
final class Finding
{
    /** @param array<string, mixed> $params */
    public function __construct(
        public readonly string $code,
        public readonly string $path,
        public readonly string $message,
        public readonly string $rule = 'unclassified',
        public readonly array $params = [],
    ) {
    }

    /**
     * A finding from its JSON object (`kuatia_error_json_in`, a validation report).
     *
     * @param array<string, mixed> $f
     */
    public static function fromArray(array $f): self
    {
        return new self(
            (string) $f['code'],
            (string) $f['path'],
            (string) $f['message'],
            isset($f['rule']) ? (string) $f['rule'] : 'unclassified',
            isset($f['params']) && is_array($f['params']) ? $f['params'] : [],
        );
    }
}
