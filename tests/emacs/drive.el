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

(condition-case failure
    (pcase (drive-given 'scenario)
      ("accept_one" (drive-accept-one))
      ("summary" (drive-summary))
      ("list" (drive-list))
      (_ (drive-review)))
  (error (drive-note 'error (format "%S" failure))))
(drive-note 'menus (vconcat (mapcar #'vconcat (reverse drive-menus))))
(with-temp-file (getenv "LSP_EDIT_OUT")
  (insert (json-encode drive-seen)))
(kill-emacs (if (assq 'error drive-seen) 1 0))
