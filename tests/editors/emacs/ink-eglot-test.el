;;; ink-eglot-test.el --- ink-ls through eglot, a plugin-less LSP client, in batch mode  -*- lexical-binding: t -*-

;; Run by tests/editors/test_emacs.py:
;;   INK_TEST_WS=DIR INK_TEST_REPORT=FILE INK_TEST_SERVER="python\x1f-m\x1fink_ls\x1f--stdio" \
;;   emacs --batch -q -l ink-eglot-test.el   (-q, not -Q: Debian activates elpa-eglot in site-start)
;; What a user does: select a region, pick "Ink: explain this" from `eglot-code-actions', call
;; `ink.ask' with `eglot-execute-command' (the model edits the file: eglot shows our
;; confirmation, then applies the edit), pick "Ink: ask about this…".  Every answer to a
;; question eglot asks goes through `completing-read', answered here from `ink-answers'.

(require 'cl-lib)
(require 'json)
(require 'project)
(require 'eglot)

(defvar ink-ws (file-name-as-directory (getenv "INK_TEST_WS")))
(defvar ink-server-command (split-string (getenv "INK_TEST_SERVER") "\x1f"))
(defvar ink-questions nil "Every question eglot asked, newest first.")
(defvar ink-answers nil "Alist: regexp matching a question → the choice to pick.")

;; Our own confirmation (showMessageRequest) already asked; do not ask twice.
(setq eglot-confirm-server-initiated-edits nil)
(add-to-list 'project-find-functions (lambda (_dir) (cons 'transient ink-ws)))

(defun ink-completing-read (prompt collection &rest _)
  "Answer PROMPT from `ink-answers' (an error for an unexpected question)."
  (push prompt ink-questions)
  (let ((names (mapcar (lambda (c) (if (consp c) (car c) c)) collection))
        (want (cl-loop for (re . choice) in ink-answers
                       when (string-match-p re prompt) return choice)))
    (or (and want (cl-find-if (lambda (n) (string-prefix-p want n)) names))
        (error "Unexpected question: %s %S" prompt names))))
(advice-add 'completing-read :override #'ink-completing-read)

(defun ink-wait (pred what)
  "Process server traffic until PRED holds (60 s at most)."
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall pred))
      (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun ink-messages () (with-current-buffer (messages-buffer) (buffer-string)))

(defun ink-region (from-line to-line)
  "Positions of the start of FROM-LINE and the start of TO-LINE (1-based)."
  (save-excursion
    (goto-char (point-min)) (forward-line (1- from-line))
    (let ((beg (point)))
      (forward-line (- to-line from-line))
      (list beg (point)))))

(defun ink-pick-action (title beg end)
  "Run the code action TITLE on BEG..END the way `M-x eglot-code-actions' does."
  (let* ((actions (eglot-code-actions beg end))
         (last-nonmenu-event 'keyboard)) ; the menu is read, not popped up
    (setq ink-answers `(("Pick an action" . ,title)))
    (eglot--read-execute-code-action actions (eglot-current-server))
    (mapcar (lambda (a) (plist-get a :title)) actions)))

(defun ink-run ()
  (let ((report nil)
        (file (expand-file-name "app.py" ink-ws)))
    (find-file file)
    (python-mode)
    (eglot '(python-mode) (project-current) 'eglot-lsp-server ink-server-command "python")
    (ink-wait #'eglot-current-server "eglot to connect")
    (let ((server (eglot-current-server)))
      (push (cons 'commands (plist-get (plist-get (eglot--capabilities server)
                                                  :executeCommandProvider)
                                       :commands))
            report)
      ;; 1. select def greet() … and pick "Ink: explain this": a short answer → showMessage
      (let ((titles (apply #'ink-pick-action "Ink: explain this" (ink-region 1 3))))
        (push (cons 'titles titles) report))
      (ink-wait (lambda () (string-match-p "Ink: app.py defines greet" (ink-messages)))
                "the explanation")
      ;; 2. ink.ask through eglot-execute-command: the model edits app.py
      (setq ink-answers '(("Ink wants to edit" . "Allow once")))
      (push (cons 'ask (eglot-execute-command
                        server 'ink.ask
                        (vector (list :prompt "rename greet to hello"
                                      :uri (eglot--path-to-uri file)))))
            report)
      (ink-wait (lambda () (string-match-p "Ink: Renamed greet" (ink-messages)))
                "the answer to ink.ask")
      (push (cons 'buffer (buffer-substring-no-properties (point-min) (point-max))) report)
      ;; 3. select the TODO comment and pick "Ink: ask about this…"
      (apply #'ink-pick-action "Ink: ask about this" (ink-region 4 5))
      (ink-wait (lambda () (string-match-p "Ink: Added the shout" (ink-messages)))
                "the answer to ask about this"))
    (push (cons 'questions (reverse ink-questions)) report)
    (push (cons 'messages (ink-messages)) report)
    (with-temp-file (getenv "INK_TEST_REPORT") (insert (json-encode report)))
    (eglot-shutdown (eglot-current-server))))

(condition-case err
    (progn (ink-run) (kill-emacs 0))
  (error
   (message "ink-eglot-test failed: %S\n--- *Messages* ---\n%s" err (ink-messages))
   (kill-emacs 1)))
