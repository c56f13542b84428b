<?php

declare(strict_types=1);

namespace Kuatia;

/** The input was read but rejected; `findings()` lists every problem. */
final class InvalidInputException extends KuatiaException
{
}
