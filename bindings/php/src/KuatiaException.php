<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * A failed call of the library: its {@see Status} (also `getCode()`, as an int), the first problem's stable
 * `code()`, `getMessage()` (in the chosen language, {@see Kuatia::setLanguage()}), `path()`, `rule()` and `params()`,
 * and every finding (`findings()`). One subclass per status:
 * {@see InvalidArgumentException}, {@see InvalidUtf8Exception}, {@see TooLargeException},
 * {@see InvalidInputException}, {@see SignException}, {@see PanicException}. Messages come from the library,
 * which never puts a password in them.
 */
class KuatiaException extends \RuntimeException
{
    /** @param list<Finding> $findings */
    public function __construct(
        private readonly Status|int $status,
        private readonly string $errorCode,
        private readonly string $errorMessage,
        private readonly string $path,
        private readonly array $findings,
        private readonly string $rule = 'unclassified',
    ) {
        parent::__construct(
            $path !== '' ? "{$errorCode} at {$path}: {$errorMessage}" : "{$errorCode}: {$errorMessage}",
            $status instanceof Status ? $status->value : $status,
        );
    }

    /** The exception for a status (KuatiaException itself for a number this binding does not know). */
    public static function of(
        int $status,
        string $code,
        string $message,
        string $path,
        array $findings,
        string $rule = 'unclassified',
    ): self {
        $s = Status::tryFrom($status);
        return match ($s) {
            Status::InvalidArgument => new InvalidArgumentException($s, $code, $message, $path, $findings, $rule),
            Status::InvalidUtf8 => new InvalidUtf8Exception($s, $code, $message, $path, $findings, $rule),
            Status::TooLarge => new TooLargeException($s, $code, $message, $path, $findings, $rule),
            Status::InvalidInput => new InvalidInputException($s, $code, $message, $path, $findings, $rule),
            Status::SignError => new SignException($s, $code, $message, $path, $findings, $rule),
            Status::Panic => new PanicException($s, $code, $message, $path, $findings, $rule),
            default => new self($s ?? $status, $code, $message, $path, $findings, $rule),
        };
    }

    /** Stable id of the rule that found the first problem (`ruc.check_digit`), or `unclassified`. */
    public function rule(): string
    {
        return $this->rule;
    }

    /** @return array<string, mixed> the parameters of the first problem's rule (`['expected' => '1', 'got' => '2']`) */
    public function params(): array
    {
        return $this->findings === [] ? [] : $this->findings[0]->params;
    }

    /** The status of the call (an int only for a number this binding does not know). */
    public function status(): Status|int
    {
        return $this->status;
    }

    /** Stable code of the first problem: `VALIDATION_ERROR.REQUIRED`, `INVALID_CDC`, `P12_WRONG_PASSWORD`, ... */
    public function code(): string
    {
        return $this->errorCode;
    }

    /** The library's message of the first problem (getMessage() adds the code and path in front). */
    public function message(): string
    {
        return $this->errorMessage;
    }

    /** JSON path of the field at fault (`items[2].iva`) or the C argument's name; empty for the whole input. */
    public function path(): string
    {
        return $this->path;
    }

    /** @return list<Finding> every problem (validation reports them all at once) */
    public function findings(): array
    {
        return $this->findings;
    }
}
