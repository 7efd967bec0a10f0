;;; drive.el --- plays a user reviewing a reply in Emacs with eglot and lsp-edit  -*- lexical-binding: t -*-

;; Loads the configuration of docs/emacs.md (LSP_EDIT_CONFIG, the block the page
;; shows, as it is), opens a file with eglot and the real `lsp-edit serve', applies a
;; reply from another buffer, types a line, accepts one change and rejects the other
;; from eglot's code action menu, saves, and writes what it saw to LSP_EDIT_OUT as
;; JSON for tests/emacs/test_emacs.py.

(require 'json)
(require 'seq)
(load (getenv "LSP_EDIT_CONFIG") nil t)

(defvar drive-seen nil)
(defvar drive-menus nil)
(defvar drive-input (json-read-file (getenv "LSP_EDIT_INPUT")))

(defun drive-note (key value)
  (push (cons key value) drive-seen))

(defun drive-given (key)
  (alist-get key drive-input))

(defun drive-wait (what predicate)
  (let ((tries 0))
    (while (and (not (funcall predicate)) (< tries 400))
      (accept-process-output nil 0.05)
      (setq tries (1+ tries)))
    (unless (funcall predicate)
      (error "Timed out waiting for %s" what))))

(defun drive-pending (count)
  (drive-wait (format "%d diagnostics" count)
              (lambda () (= count (length (flymake-diagnostics))))))

(defun drive-choose (menu-pick)
  "Runs `eglot-code-actions' on this line as a user does, MENU-PICK choosing."
  (let ((last-nonmenu-event 13))        ; a key, not a mouse click: no popup menu
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest args)
                 (push (mapcar #'car collection) drive-menus)
                 (funcall menu-pick collection (nth 4 args)))))
      (eglot-code-actions (line-beginning-position) (line-end-position) nil t))))

(defun drive-review ()
  (let ((file (find-file (drive-given 'file))))
    (with-current-buffer file
      (call-interactively #'eglot)
      (drive-wait "the server" #'eglot-current-server))
    (with-current-buffer (get-buffer-create "*reply*")
      (insert (drive-given 'reply))
      (let ((result (lsp-edit-apply (point-min) (point-max) file)))
        (drive-note 'summary (plist-get result :summary))))
    (with-current-buffer file
      (drive-pending 2)
      (drive-note 'diagnostics (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))
      (goto-char (point-min))
      (insert (drive-given 'typed) "\n")
      (goto-char (point-min))
      (search-forward (drive-given 'first))
      ;; RET in the menu takes the default: the preferred action, "Accept change".
      (drive-choose (lambda (_collection default) default))
      (drive-pending 1)
      (goto-char (point-min))
      (search-forward (drive-given 'second))
      (drive-choose (lambda (collection _default)
                      (car (seq-find (lambda (item) (string-prefix-p "Reject change" (car item)))
                                     collection))))
      (drive-pending 0)
      (save-buffer)
      (drive-note 'buffer (buffer-substring-no-properties (point-min) (point-max))))))

(defun drive-statuses ()
  "The status of every change the server has, from `lspEdit.list'."
  (let ((listed (eglot-execute-command (eglot-current-server) 'lspEdit.list
                                       (vector (make-hash-table)))))
    (mapcar (lambda (change) (plist-get change :status)) (plist-get listed :changes))))

(defun drive-accept-one ()
  "One change accepted with `C-c l a' RET (its \"Accept change\" code action), saved."
  (let ((file (find-file (drive-given 'file))))
    (with-current-buffer file
      (call-interactively #'eglot)
      (drive-wait "the server" #'eglot-current-server))
    (with-current-buffer (get-buffer-create "*reply*")
      (insert (drive-given 'reply))
      (lsp-edit-apply (point-min) (point-max) file))
    (with-current-buffer file
      (drive-pending 1)
      (goto-char (point-min))
      (execute-kbd-macro (kbd "C-c l n"))
      (drive-choose (lambda (_collection default) default))
      (drive-wait "the change to be decided"
                  (lambda () (not (member "pending" (drive-statuses)))))
      ;; Whatever else the server sends (an edit of its own) arrives within this.
      (sleep-for 0.5)
      (accept-process-output nil 0.1)
      (drive-note 'statuses (vconcat (drive-statuses)))
      (drive-note 'diagnostics (vconcat (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
      (save-buffer)
      (drive-note 'buffer (buffer-substring-no-properties (point-min) (point-max))))))

(defun drive-summary ()
  "A reply with a block that fails, applied as `M-x lsp-edit-apply' does it: what
the echo area and the *lsp-edit* buffer show once Emacs's own M-x hint has run."
  (let ((file (find-file (drive-given 'file))))
    (with-current-buffer file
      (call-interactively #'eglot)
      (drive-wait "the server" #'eglot-current-server))
    (switch-to-buffer (get-buffer-create "*reply*"))
    (insert (drive-given 'reply))
    (display-buffer file)
    (execute-extended-command nil "lsp-edit-apply" "lsp-edit-apply")
    ;; Emacs shows "You can run the command ... with M-x ..." after it (0 to 2 s).
    (sleep-for 2.5)
    (let ((summary (get-buffer "*lsp-edit*")))
      (drive-note 'buffer (and summary (with-current-buffer summary (buffer-string))))
      (drive-note 'shown (and summary (get-buffer-window summary) t)))))

(defun drive-list ()
  "The pending changes and failures of a project, from `flymake-show-project-diagnostics'."
  (let ((file (find-file (drive-given 'file))))
    (with-current-buffer file
      (call-interactively #'eglot)
      (drive-wait "the server" #'eglot-current-server)
      (with-temp-buffer
        (insert (drive-given 'reply))
        (lsp-edit-apply (point-min) (point-max) file))
      (drive-pending (drive-given 'in_file))
      (flymake-show-project-diagnostics)
      (let ((listing (seq-find (lambda (b) (string-prefix-p "*Flymake diagnostics for" (buffer-name b)))
                               (buffer-list))))
        (cl-flet ((entries ()
                    (with-current-buffer listing
                      (revert-buffer)
                      (if (functionp tabulated-list-entries)
                          (funcall tabulated-list-entries)
                        tabulated-list-entries))))
          (drive-wait "the listing"
                      (lambda () (= (length (entries)) (drive-given 'listed))))
          (drive-note 'listed
                      (vconcat
                       (mapcar (lambda (entry)
                                 (vconcat (mapcar (lambda (column)
                                                    (if (consp column) (car column) column))
                                                  (cadr entry))))
                               (entries)))))))))

;;;; The inline view (editors/emacs/lsp-edit-inline.el)

(defvar drive-asked 0 "How many times the buffers asked the server for their changes.")

(advice-add 'jsonrpc-async-request :before
            (lambda (_server method params &rest _)
              (when (and (eq method :workspace/executeCommand)
                         (equal (plist-get params :command) "lspEdit.list"))
                (setq drive-asked (1+ drive-asked)))))

(defun drive-overlays ()
  "The inline view's overlays in this buffer, in order."
  (sort (seq-filter (lambda (overlay) (overlay-get overlay 'lsp-edit-inline))
                    (overlays-in (point-min) (point-max)))
        (lambda (a b) (< (overlay-start a) (overlay-start b)))))

(defun drive-line (position)
  (1- (line-number-at-pos position)))

(defun drive-inline-view ()
  "What the view shows: for each overlay, the lines it covers (0-based, the last
excluded), its new lines when shown (the after-string) and the faces."
  (vconcat
   (mapcar (lambda (overlay)
             (let ((after (overlay-get overlay 'after-string))
                   (face (overlay-get overlay 'face)))
               (list (cons 'first (drive-line (overlay-start overlay)))
                     (cons 'last (drive-line (overlay-end overlay)))
                     (cons 'new (and after (vconcat (split-string (string-remove-suffix "\n" after) "\n"))))
                     (cons 'new_face (and after (format "%s" (get-text-property (1- (length after)) 'face after))))
                     (cons 'old_face (and face (format "%s" face))))))
           (drive-overlays))))

(defun drive-shown ()
  (seq-count (lambda (overlay) (overlay-get overlay 'after-string)) (drive-overlays)))

(defun drive-inline-wait (shown overlays)
  (drive-wait (format "%d changes shown inline" shown)
              (lambda () (and (= shown (drive-shown)) (= overlays (length (drive-overlays)))))))

(defun drive-answered ()
  "Waits until the view has asked for the changes again and drawn the answer."
  (let ((asked drive-asked))
    (drive-wait "the view to ask again"
                (lambda () (and (> drive-asked asked) (null lsp-edit-inline--asking)
                                (null lsp-edit-inline--timer))))))

(defun drive-open-with-eglot (path)
  (let ((buffer (find-file path)))
    (with-current-buffer buffer
      (call-interactively #'eglot)
      (drive-wait "the server" #'eglot-current-server))
    buffer))

(defun drive-propose (file)
  (with-current-buffer (get-buffer-create "*reply*")
    (insert (drive-given 'reply))
    (lsp-edit-apply (point-min) (point-max) file)))

(defun drive-inline ()
  "A reply proposed; a line typed above its changes; one change accepted, the
other rejected: what the overlays show at each step."
  (let ((file (drive-open-with-eglot (drive-given 'file))))
    (drive-propose file)
    (with-current-buffer file
      (drive-inline-wait 2 2)
      (drive-note 'proposed (drive-inline-view))
      (let ((before (drive-overlays)))
        (goto-char (point-min))
        (insert (drive-given 'typed) "\n")
        (drive-note 'typed_at_once (drive-inline-view))
        ;; Eglot sends the typing once Emacs is idle (0.5 s), and batch Emacs runs no
        ;; idle timer: send it as that timer would.
        (eglot--signal-textDocument/didChange)
        (drive-answered)
        (drive-note 'typed_answered (drive-inline-view))
        (drive-note 'same_overlays (and (cl-every #'eq before (drive-overlays)) t)))
      (goto-char (point-min))
      (search-forward (drive-given 'first))
      (drive-choose (lambda (_collection default) default))
      (drive-note 'accepted_at_once (drive-shown))
      (drive-inline-wait 1 1)
      (drive-note 'accepted (drive-inline-view))
      (goto-char (point-min))
      (search-forward (drive-given 'second))
      (drive-choose (lambda (collection _default)
                      (car (seq-find (lambda (item) (string-prefix-p "Reject change" (car item)))
                                     collection))))
      (drive-inline-wait 0 0)
      (drive-note 'rejected (drive-inline-view))
      (drive-note 'buffer (buffer-substring-no-properties (point-min) (point-max))))))

(defun drive-inline-typing-inside ()
  "Text typed in a change's old lines: what shows at once, and after the server's
answer."
  (let ((file (drive-open-with-eglot (drive-given 'file))))
    (drive-propose file)
    (with-current-buffer file
      (drive-inline-wait 2 2)
      (goto-char (point-min))
      (search-forward (drive-given 'first))
      (end-of-line)
      (insert (drive-given 'typed))
      (drive-note 'at_once (drive-inline-view))
      ;; What eglot's idle timer does (batch Emacs runs none): send the typing.
      (eglot--signal-textDocument/didChange)
      (drive-inline-wait 1 1)
      (drive-note 'answered (drive-inline-view)))))

(defun drive-inline-edges ()
  "A reply proposed: the overlays once they are all there."
  (let ((file (drive-open-with-eglot (drive-given 'file))))
    (drive-propose file)
    (with-current-buffer file
      (drive-inline-wait (drive-given 'shown) (drive-given 'overlays))
      (drive-note 'proposed (drive-inline-view)))))

(defun drive-inline-modes ()
  "Only the change on the cursor's line, then all, then the view off."
  (let ((file (drive-open-with-eglot (drive-given 'file))))
    (drive-propose file)
    (with-current-buffer file
      (drive-inline-wait 2 2)
      (switch-to-buffer file)
      (lsp-edit-inline-set-show 'cursor)
      (goto-char (point-min))
      (run-hooks 'post-command-hook)
      (drive-note 'cursor_elsewhere (drive-inline-view))
      (search-forward (drive-given 'first))
      (run-hooks 'post-command-hook)
      (drive-note 'cursor_on_first (drive-inline-view))
      (goto-char (point-min))
      (search-forward (drive-given 'second))
      (run-hooks 'post-command-hook)
      (drive-note 'cursor_on_second (drive-inline-view))
      (lsp-edit-inline-set-show 'all)
      (drive-note 'all (drive-inline-view))
      (lsp-edit-inline-mode -1)
      (drive-note 'off (drive-inline-view)))))

(defun drive-inline-stream ()
  "A reply document streamed in line by line: the file's overlays after each part;
the overlays drawn before are the same overlays after."
  (let* ((file (drive-open-with-eglot (drive-given 'file)))
         ;; Eglot manages the reply with the file's server by itself (its mode is in the
         ;; same entry of eglot-server-programs).
         (answer (find-file (drive-given 'answer)))
         (views nil)
         (first-overlays nil))
    (with-current-buffer answer
      (drive-wait "eglot to manage the reply" #'eglot-managed-p))
    (seq-doseq (part (drive-given 'parts))
      (dolist (line (split-string (string-remove-suffix "\n" part) "\n"))
        (with-current-buffer answer
          (goto-char (point-max))
          (insert line "\n")
          ;; What eglot's idle timer does (batch Emacs runs none): send the typing.
          (eglot--signal-textDocument/didChange))
        (accept-process-output nil 0.01))
      (with-current-buffer file
        (let ((count (1+ (length views))))
          (drive-inline-wait count count))
        (push (drive-inline-view) views)
        (unless first-overlays
          (setq first-overlays (drive-overlays)))))
    (with-current-buffer file
      (drive-note 'views (vconcat (reverse views)))
      (drive-note 'same_first (and (eq (car first-overlays) (car (drive-overlays))) t)))))

(condition-case failure
    (pcase (drive-given 'scenario)
      ("accept_one" (drive-accept-one))
      ("summary" (drive-summary))
      ("list" (drive-list))
      ("inline" (drive-inline))
      ("inline_edges" (drive-inline-edges))
      ("inline_typing_inside" (drive-inline-typing-inside))
      ("inline_modes" (drive-inline-modes))
      ("inline_stream" (drive-inline-stream))
      (_ (drive-review)))
  (error (drive-note 'error (format "%S" failure))))
(drive-note 'menus (vconcat (mapcar #'vconcat (reverse drive-menus))))
(with-temp-file (getenv "LSP_EDIT_OUT")
  (insert (json-encode drive-seen)))
(kill-emacs (if (assq 'error drive-seen) 1 0))
