<?php

declare(strict_types=1);

namespace Kuatia;

/** A bug inside kuatia was caught at the C boundary; please report it. */
final class PanicException extends KuatiaException
{
}
