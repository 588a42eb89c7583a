-- The chat's line for a prompt waiting for the model endpoint's request limit.
local H = require('harness')
local queue = require('ink.queue')

H.case('queue: one line per wait, with the place on arrival', function()
  H.eq('waiting for the model endpoint (3 ahead)', queue.line({ status = 'queued', ahead = 3 }))
  H.eq(nil, queue.line({ status = 'queued', ahead = 0 }), 'the queue moving adds no line')
  H.eq(nil, queue.line({ status = 'running' }))
  H.eq('waiting for the model endpoint (1 ahead)', queue.line({ status = 'queued', ahead = 1 }))
  queue.line({ status = 'running' })
end)

H.run()
