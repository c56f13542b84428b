<?php

declare(strict_types=1);

namespace Kuatia;

/** Paper format of the KuDE (`kuatia_kude_format`). */
enum KudeFormat: string
{
    /** A4 portrait, paginated. */
    case A4 = 'a4';
    /** 80 mm receipt roll, one long page. */
    case Ticket = 'ticket';

    /** The number the C API takes. */
    public function cValue(): int
    {
        return match ($this) {
            self::A4 => Abi::KUDE_FORMAT_A4,
            self::Ticket => Abi::KUDE_FORMAT_TICKET,
        };
    }
}
