<?php

declare(strict_types=1);

namespace Kuatia;

/** `kuatia_status` of the C library (the numbers are part of the ABI and never change). */
enum Status: int
{
    case Ok = 0;
    case InvalidArgument = 1;
    case InvalidUtf8 = 2;
    case TooLarge = 3;
    case InvalidInput = 4;
    case SignError = 5;
    case Panic = 6;

    /** The header's name without its prefix: `INVALID_INPUT`. */
    public function cName(): string
    {
        return strtoupper(preg_replace('/(?<=[a-z0-9])(?=[A-Z])/', '_', $this->name) ?? $this->name);
    }
}
