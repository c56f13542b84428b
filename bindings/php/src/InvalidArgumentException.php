<?php

declare(strict_types=1);

namespace Kuatia;

/** A required argument was missing (NULL at the C boundary): `INVALID_ARGUMENT`, the path names the argument. */
final class InvalidArgumentException extends KuatiaException
{
}
