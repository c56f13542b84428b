-- wrk script: GET /v1/facturas/{id}, rotating over the invoice ids listed in $KUATIA_WRK_IDS (one a line), each
-- thread from its own offset. Environment: KUATIA_KEY (sandbox key), KUATIA_WRK_IDS, KUATIA_WRK_OUT.
dofile("scripts/wrk/common.lua")
expected_status = 200

local ids, next_id = {}, 0

wrk.headers["Authorization"] = "Bearer " .. os.getenv("KUATIA_KEY")
wrk.headers["X-Environment"] = "sandbox"

function init(args)
  for line in io.lines(os.getenv("KUATIA_WRK_IDS")) do
    if line ~= "" then table.insert(ids, line) end
  end
  next_id = (thread_no or 1) * 97
end

function request()
  next_id = next_id + 1
  return wrk.format("GET", "/v1/facturas/" .. ids[next_id % #ids + 1])
end
