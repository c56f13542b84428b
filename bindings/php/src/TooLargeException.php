<?php

declare(strict_types=1);

namespace Kuatia;

/** An input exceeded a size limit (`TOO_LARGE`). */
final class TooLargeException extends KuatiaException
{
}
