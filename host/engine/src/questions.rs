//! Questions the model asks (the `question` tool), as the engine's API: a frontend
//! that can answer holds an [`Answerer`], sees `question.asked` on the event stream,
//! and answers with [`Engine::answer_question`] or [`Engine::reject_question`].
//! Without an answerer the tool fails at once (see `ward_session::question`).

use ward_session::question::Answerer;
use ward_store::QuestionRequest;

use crate::engine::Engine;
use crate::error::EngineError;

impl Engine {
    /// Declares that this frontend answers questions, for as long as the result is
    /// held; dropping the last answerer dismisses the questions still waiting.
    pub fn question_answerer(&self) -> Answerer {
        self.shared.questions.answerer()
    }

    /// Answers question request `id`: one list of chosen labels (or typed text) per
    /// question, in order.
    pub fn answer_question(&self, id: &str, answers: Vec<Vec<String>>) -> Result<(), EngineError> {
        Ok(self.shared.questions.reply(id, answers)?)
    }

    /// [`Engine::answer_question`] from a frontend that could not offer everything
    /// the question allows (say, typed answers): `note` tells the model how the
    /// answers were given.
    pub fn answer_question_noted(
        &self,
        id: &str,
        answers: Vec<Vec<String>>,
        note: &str,
    ) -> Result<(), EngineError> {
        Ok(self
            .shared
            .questions
            .reply_noted(id, answers, Some(note.to_string()))?)
    }

    /// Dismisses question request `id`: the model is told the user did not answer.
    pub fn reject_question(&self, id: &str) -> Result<(), EngineError> {
        Ok(self.shared.questions.reject(id)?)
    }

    /// The question requests waiting for an answer, oldest first.
    pub fn pending_questions(&self) -> Vec<QuestionRequest> {
        self.shared.questions.pending()
    }
}
