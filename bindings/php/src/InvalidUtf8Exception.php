<?php

declare(strict_types=1);

namespace Kuatia;

/** A text input was not valid UTF-8 (`INVALID_UTF8`). */
final class InvalidUtf8Exception extends KuatiaException
{
}
