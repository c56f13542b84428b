# Reglas del KuDE (core/src/rule/kude.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`.

kude-font = No se puede leer la fuente incorporada del KuDE
kude-qr_missing = Se necesita el texto del QR (dCarQR) para imprimir el KuDE
kude-qr = No se puede codificar como QR: { $detail }
kude-logo = El logotipo no es una imagen JPEG o PNG legible ({ $detail })
kude-logo_size = Las dimensiones del logotipo son cero o superan los { $side } × { $side } píxeles
