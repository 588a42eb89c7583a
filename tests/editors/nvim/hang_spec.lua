-- A script that never finishes: pytest must time out, kill Neovim and report a failure.
local H = require('harness')
H.case('never', function()
  H.wait_for(function()
    return false
  end, 'something that never happens', 3600 * 1000)
end)
H.run()
