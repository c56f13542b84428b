<?php

declare(strict_types=1);

namespace Kuatia;

/** A key, certificate or signature operation failed (`P12_INVALID`, `P12_WRONG_PASSWORD`, `KEY_*`, ...). */
final class SignException extends KuatiaException
{
}
