-- wrk script: POST /v1/facturas, each request with its own Idempotency-Key and the invoice of
-- server/benches/load.rs's factura(i), tagged "<run>-<thread>-<counter>" in the item's description. Every 201's tag and
-- invoice id go to $KUATIA_WRK_OUT.acked ("tag id" lines), so the stored invoices can be checked against exactly what
-- wrk saw acknowledged. Environment: KUATIA_KEY (sandbox key), KUATIA_WRK_RUN (run tag), KUATIA_WRK_OUT.
dofile("scripts/wrk/common.lua")
expected_status = 201

local key = os.getenv("KUATIA_KEY")
local run = os.getenv("KUATIA_WRK_RUN") or "r"
local counter = 0
acked = {}

wrk.method = "POST"
wrk.path = "/v1/facturas"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["X-Environment"] = "sandbox"
wrk.headers["Content-Type"] = "application/json"

function request()
  counter = counter + 1
  local tag = run .. "-" .. thread_no .. "-" .. counter
  local body = '{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo S.A.",'
    .. '"email":"cliente@example.com"},"items":[{"descripcion":"Servicio ' .. tag
    .. '","cantidad":1,"precio_unitario":1100000,"iva":10}],"condicion_pago":1}'
  wrk.headers["Idempotency-Key"] = "wrk-" .. tag
  wrk.headers["Content-Length"] = #body
  return wrk.format(nil, nil, nil, body)
end

function on_ok(body)
  local tag = body:match('"descripcion":"Servicio ([^"]+)"')
  local id = body:match('"id":"(fact_[^"]+)"')
  table.insert(acked, (tag or "?") .. " " .. (id or "?"))
end

local acked_file
function on_done_thread(t)
  acked_file = acked_file or assert(io.open(os.getenv("KUATIA_WRK_OUT") .. ".acked", "w"))
  for _, line in ipairs(t:get("acked")) do acked_file:write(line, "\n") end
end

function on_done()
  if acked_file then acked_file:close() end
end
